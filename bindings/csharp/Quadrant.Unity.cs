// SPDX-License-Identifier: MIT
// quadrant for C#: conversions from UnityEngine's Rect, Bounds, Vector2, Vector3 and Matrix4x4, compiled in Unity
// only (UNITY_5_3_OR_NEWER). Unity's ground plane is (x, z): Box2.XZ and Shape.CircleXZ map it to a QuadTree's
// (x, y). Unity's vectors are floats: exact as doubles.
#if UNITY_5_3_OR_NEWER
using UnityEngine;

namespace Quadrant
{
    public partial struct Box2
    {
        /// <summary>The rectangle's box: (xMin, yMin) to (xMax, yMax).</summary>
        public Box2(Rect rect) { MinX = rect.xMin; MinY = rect.yMin; MaxX = rect.xMax; MaxY = rect.yMax; }
        /// <summary>The box from min to max.</summary>
        public Box2(Vector2 min, Vector2 max) { MinX = min.x; MinY = min.y; MaxX = max.x; MaxY = max.y; }
        /// <summary>The bounds' footprint on Unity's ground plane: (min.x, min.z) to (max.x, max.z).</summary>
        public static Box2 XZ(Bounds bounds)
        {
            Vector3 min = bounds.min, max = bounds.max;
            return new Box2(min.x, min.z, max.x, max.z);
        }
        /// <summary>The box as a Rect (rounded to float).</summary>
        public Rect ToRect() { return Rect.MinMaxRect((float)MinX, (float)MinY, (float)MaxX, (float)MaxY); }
    }

    public partial struct Box3
    {
        /// <summary>The bounds' box: min to max.</summary>
        public Box3(Bounds bounds)
        {
            Vector3 min = bounds.min, max = bounds.max;
            MinX = min.x; MinY = min.y; MinZ = min.z; MaxX = max.x; MaxY = max.y; MaxZ = max.z;
        }
        /// <summary>The box from min to max.</summary>
        public Box3(Vector3 min, Vector3 max) { MinX = min.x; MinY = min.y; MinZ = min.z; MaxX = max.x; MaxY = max.y; MaxZ = max.z; }
        /// <summary>The box as Bounds (rounded to float).</summary>
        public Bounds ToBounds()
        {
            Bounds b = new Bounds();
            b.SetMinMax(new Vector3((float)MinX, (float)MinY, (float)MinZ), new Vector3((float)MaxX, (float)MaxY, (float)MaxZ));
            return b;
        }
    }

    public partial struct Shape
    {
        /// <summary>A 2D box from a Rect.</summary>
        public static Shape Box(Rect rect) { return Box(new Box2(rect)); }
        /// <summary>A 3D box from Bounds.</summary>
        public static Shape Box(Bounds bounds) { return Box(new Box3(bounds)); }
        /// <summary>A 2D point.</summary>
        public static Shape Point(Vector2 p) { return Point(p.x, p.y); }
        /// <summary>A 3D point.</summary>
        public static Shape Point(Vector3 p) { return Point(p.x, p.y, p.z); }
        /// <summary>A circle.</summary>
        public static Shape Circle(Vector2 center, double radius) { return Circle(center.x, center.y, radius); }
        /// <summary>A circle on Unity's ground plane around (center.x, center.z).</summary>
        public static Shape CircleXZ(Vector3 center, double radius) { return Circle(center.x, center.z, radius); }
        /// <summary>A sphere.</summary>
        public static Shape Sphere(Vector3 center, double radius) { return Sphere(center.x, center.y, center.z, radius); }
        /// <summary>A 2D segment from a to b.</summary>
        public static Shape Segment(Vector2 a, Vector2 b) { return Segment(a.x, a.y, b.x, b.y); }
        /// <summary>A 3D segment from a to b.</summary>
        public static Shape Segment(Vector3 a, Vector3 b) { return Segment(a.x, a.y, a.z, b.x, b.y, b.z); }
        /// <summary>The frustum of a view-projection matrix: camera.projectionMatrix * camera.worldToCameraMatrix
        /// (OpenGL clip depth, as Unity's projectionMatrix is on every platform); clipZeroToOne for a matrix from
        /// GL.GetGPUProjectionMatrix on Direct3D, Vulkan or Metal. Allocates the 16 numbers' array: once a frame,
        /// pass your own array to the other overload.</summary>
        public static Shape Frustum(Matrix4x4 viewProjection, bool clipZeroToOne = false)
        {
            return Frustum(viewProjection, new double[16], clipZeroToOne);
        }
        /// <summary>Shape.Frustum(Matrix4x4) writing the 16 numbers into `numbers` (16 long; read at each query, so
        /// keep it unchanged while the shape is used): no allocation.</summary>
        public static Shape Frustum(Matrix4x4 m, double[] numbers, bool clipZeroToOne = false)
        {
            if (numbers == null || numbers.Length != 16) throw new System.ArgumentException("quadrant: a frustum needs an array of 16 numbers");
            // Unity's mRC is row R, column C (column vectors, as OpenGL): read row by row.
            numbers[0] = m.m00; numbers[1] = m.m01; numbers[2] = m.m02; numbers[3] = m.m03;
            numbers[4] = m.m10; numbers[5] = m.m11; numbers[6] = m.m12; numbers[7] = m.m13;
            numbers[8] = m.m20; numbers[9] = m.m21; numbers[10] = m.m22; numbers[11] = m.m23;
            numbers[12] = m.m30; numbers[13] = m.m31; numbers[14] = m.m32; numbers[15] = m.m33;
            return Frustum(numbers, true, clipZeroToOne);
        }
    }

    public partial struct StreamSource
    {
        /// <summary>A camera: the frustum of viewProjection (as Shape.Frustum(Matrix4x4) reads it), its position,
        /// and a prefetch ball around the position. No allocation.</summary>
        public static StreamSource Camera(Matrix4x4 viewProjection, Vector3 position, double prefetchRadius, bool clipZeroToOne = false)
        {
            StreamSource s = Ball(position.x, position.y, position.z, prefetchRadius);
            Matrix4x4 m = viewProjection;
            s.SetMatrix(m.m00, m.m01, m.m02, m.m03, m.m10, m.m11, m.m12, m.m13, m.m20, m.m21, m.m22, m.m23, m.m30, m.m31, m.m32, m.m33);
            s.rowMajor = 1;
            s.clipZeroToOne = clipZeroToOne ? 1 : 0;
            return s;
        }
        /// <summary>A position alone with its prefetch radius.</summary>
        public static StreamSource Ball(Vector3 position, double prefetchRadius) { return Ball(position.x, position.y, position.z, prefetchRadius); }
    }
}
#endif
