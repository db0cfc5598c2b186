// SPDX-License-Identifier: MIT
// A stand-in for the part of UnityEngine.dll that the package's Runtime/ and Samples~/ use, so that both compile
// with mono's mcs and the samples run under mono (scripts/test_unity). Not shipped. The types keep Unity's names,
// fields, signatures and maths (column vectors, Matrix4x4 indexed [row, column]); only what the package uses is
// here, and a call Unity would draw or render is counted instead (Gizmos).
using System;
using System.Collections.Generic;
using System.Reflection;

namespace UnityEngine
{
    public class Object
    {
        public string name = "";
        public static void Destroy(Object o) { }
        public static implicit operator bool(Object o) { return !ReferenceEquals(o, null); }
    }

    public class Component : Object
    {
        internal GameObject owner;
        public GameObject gameObject { get { return owner; } }
        public Transform transform { get { return owner.transform; } }
        public T GetComponent<T>() where T : Component { return owner.GetComponent<T>(); }
    }

    public class Behaviour : Component
    {
        public bool enabled = true;
        public bool isActiveAndEnabled { get { return enabled && owner.activeSelf; } }
    }

    public class MonoBehaviour : Behaviour { }

    public class Transform : Component
    {
        public Vector3 position;
        public Quaternion rotation = Quaternion.identity;
        public Vector3 localScale = Vector3.one;
        public Vector3 forward { get { return rotation * new Vector3(0, 0, 1); } }
        /// The matrix from this object's space to the world (translation and rotation; scale one).
        public Matrix4x4 localToWorldMatrix { get { return Matrix4x4.TRS(position, rotation, localScale); } }
        public Matrix4x4 worldToLocalMatrix { get { return localToWorldMatrix.inverse; } }
        public void LookAt(Vector3 target) { rotation = Quaternion.LookRotation(target - position); }
    }

    public sealed class GameObject : Object
    {
        readonly List<Component> components = new List<Component>();
        public readonly Transform transform;
        public bool activeSelf = true;
        public GameObject() : this("GameObject") { }
        public GameObject(string name)
        {
            this.name = name;
            transform = new Transform();
            transform.owner = this;
            components.Add(transform);
        }
        public T AddComponent<T>() where T : Component, new()
        {
            T c = new T();
            c.owner = this;
            components.Add(c);
            return c;
        }
        public T GetComponent<T>() where T : Component
        {
            foreach (Component c in components)
                if (c is T) return (T)c;
            return null;
        }
        public void SetActive(bool value) { activeSelf = value; }
    }

    public class Camera : Behaviour
    {
        public float fieldOfView = 60, aspect = 16f / 9f, nearClipPlane = 0.3f, farClipPlane = 1000;
        public static Camera main;
        /// OpenGL convention, as Unity reports it on every graphics API.
        public Matrix4x4 projectionMatrix { get { return Matrix4x4.Perspective(fieldOfView, aspect, nearClipPlane, farClipPlane); } }
        /// The view matrix: camera space looks down -z (Unity's convention, unlike its world space's +z forward).
        public Matrix4x4 worldToCameraMatrix
        {
            get
            {
                Matrix4x4 flip = Matrix4x4.identity;
                flip.m22 = -1;
                return flip * Matrix4x4.TRS(transform.position, transform.rotation, Vector3.one).inverse;
            }
        }
    }

    public struct Vector2
    {
        public float x, y;
        public Vector2(float x, float y) { this.x = x; this.y = y; }
        public static Vector2 zero { get { return new Vector2(0, 0); } }
        public static Vector2 operator +(Vector2 a, Vector2 b) { return new Vector2(a.x + b.x, a.y + b.y); }
        public static Vector2 operator -(Vector2 a, Vector2 b) { return new Vector2(a.x - b.x, a.y - b.y); }
        public static Vector2 operator *(Vector2 a, float d) { return new Vector2(a.x * d, a.y * d); }
        public static implicit operator Vector3(Vector2 v) { return new Vector3(v.x, v.y, 0); }
        public static implicit operator Vector2(Vector3 v) { return new Vector2(v.x, v.y); }
        public override string ToString() { return "(" + x + ", " + y + ")"; }
    }

    public struct Vector3
    {
        public float x, y, z;
        public Vector3(float x, float y, float z) { this.x = x; this.y = y; this.z = z; }
        public Vector3(float x, float y) { this.x = x; this.y = y; z = 0; }
        public static Vector3 zero { get { return new Vector3(0, 0, 0); } }
        public static Vector3 one { get { return new Vector3(1, 1, 1); } }
        public static Vector3 up { get { return new Vector3(0, 1, 0); } }
        public float magnitude { get { return (float)Math.Sqrt(x * x + y * y + z * z); } }
        public Vector3 normalized { get { float m = magnitude; return m > 1e-5f ? this * (1 / m) : zero; } }
        public static Vector3 Cross(Vector3 a, Vector3 b) { return new Vector3(a.y * b.z - a.z * b.y, a.z * b.x - a.x * b.z, a.x * b.y - a.y * b.x); }
        public static float Dot(Vector3 a, Vector3 b) { return a.x * b.x + a.y * b.y + a.z * b.z; }
        public static Vector3 operator +(Vector3 a, Vector3 b) { return new Vector3(a.x + b.x, a.y + b.y, a.z + b.z); }
        public static Vector3 operator -(Vector3 a, Vector3 b) { return new Vector3(a.x - b.x, a.y - b.y, a.z - b.z); }
        public static Vector3 operator -(Vector3 a) { return new Vector3(-a.x, -a.y, -a.z); }
        public static Vector3 operator *(Vector3 a, float d) { return new Vector3(a.x * d, a.y * d, a.z * d); }
        public static Vector3 operator *(float d, Vector3 a) { return a * d; }
        public override string ToString() { return "(" + x + ", " + y + ", " + z + ")"; }
    }

    public struct Vector4
    {
        public float x, y, z, w;
        public Vector4(float x, float y, float z, float w) { this.x = x; this.y = y; this.z = z; this.w = w; }
    }

    public struct Quaternion
    {
        public float x, y, z, w;
        public Quaternion(float x, float y, float z, float w) { this.x = x; this.y = y; this.z = z; this.w = w; }
        public static Quaternion identity { get { return new Quaternion(0, 0, 0, 1); } }
        public static Quaternion AngleAxis(float degrees, Vector3 axis)
        {
            Vector3 n = axis.normalized;
            double half = degrees * Math.PI / 360;
            float s = (float)Math.Sin(half);
            return new Quaternion(n.x * s, n.y * s, n.z * s, (float)Math.Cos(half));
        }
        public static Quaternion Euler(float x, float y, float z)
        {
            // Unity applies z, then x, then y.
            return AngleAxis(y, Vector3.up) * AngleAxis(x, new Vector3(1, 0, 0)) * AngleAxis(z, new Vector3(0, 0, 1));
        }
        public static Quaternion LookRotation(Vector3 forward)
        {
            Vector3 f = forward.normalized;
            float yaw = (float)(Math.Atan2(f.x, f.z) * 180 / Math.PI);
            float pitch = (float)(-Math.Asin(Math.Max(-1, Math.Min(1, f.y))) * 180 / Math.PI);
            return Euler(pitch, yaw, 0);
        }
        public static Quaternion operator *(Quaternion a, Quaternion b)
        {
            return new Quaternion(a.w * b.x + a.x * b.w + a.y * b.z - a.z * b.y, a.w * b.y - a.x * b.z + a.y * b.w + a.z * b.x,
                                  a.w * b.z + a.x * b.y - a.y * b.x + a.z * b.w, a.w * b.w - a.x * b.x - a.y * b.y - a.z * b.z);
        }
        public static Vector3 operator *(Quaternion q, Vector3 v)
        {
            Vector3 u = new Vector3(q.x, q.y, q.z);
            Vector3 t = Vector3.Cross(u, v) * 2;
            return v + t * q.w + Vector3.Cross(u, t);
        }
    }

    public struct Color
    {
        public float r, g, b, a;
        public Color(float r, float g, float b, float a = 1) { this.r = r; this.g = g; this.b = b; this.a = a; }
        public static Color red { get { return new Color(1, 0, 0); } }
        public static Color green { get { return new Color(0, 1, 0); } }
        public static Color blue { get { return new Color(0, 0, 1); } }
        public static Color white { get { return new Color(1, 1, 1); } }
        public static Color gray { get { return new Color(0.5f, 0.5f, 0.5f); } }
        public static Color cyan { get { return new Color(0, 1, 1); } }
        public static Color yellow { get { return new Color(1, 0.92f, 0.016f); } }
        public static Color HSVToRGB(float h, float s, float v)
        {
            float i = (float)Math.Floor(h * 6), f = h * 6 - i, p = v * (1 - s), q = v * (1 - f * s), t = v * (1 - (1 - f) * s);
            switch (((int)i % 6 + 6) % 6)
            {
                case 0: return new Color(v, t, p);
                case 1: return new Color(q, v, p);
                case 2: return new Color(p, v, t);
                case 3: return new Color(p, q, v);
                case 4: return new Color(t, p, v);
                default: return new Color(v, p, q);
            }
        }
    }

    public struct Rect
    {
        public float x, y, width, height;
        public Rect(float x, float y, float width, float height) { this.x = x; this.y = y; this.width = width; this.height = height; }
        public float xMin { get { return x; } set { width += x - value; x = value; } }
        public float yMin { get { return y; } set { height += y - value; y = value; } }
        public float xMax { get { return x + width; } set { width = value - x; } }
        public float yMax { get { return y + height; } set { height = value - y; } }
        public Vector2 min { get { return new Vector2(xMin, yMin); } }
        public Vector2 max { get { return new Vector2(xMax, yMax); } }
        public Vector2 center { get { return new Vector2(x + width / 2, y + height / 2); } }
        public Vector2 size { get { return new Vector2(width, height); } }
        public bool Overlaps(Rect o) { return o.xMax > xMin && o.xMin < xMax && o.yMax > yMin && o.yMin < yMax; }
        public static Rect MinMaxRect(float xmin, float ymin, float xmax, float ymax) { return new Rect(xmin, ymin, xmax - xmin, ymax - ymin); }
    }

    public struct Bounds
    {
        public Vector3 center, extents;
        public Bounds(Vector3 center, Vector3 size) { this.center = center; extents = size * 0.5f; }
        public Vector3 size { get { return extents * 2; } set { extents = value * 0.5f; } }
        public Vector3 min { get { return center - extents; } }
        public Vector3 max { get { return center + extents; } }
        public void SetMinMax(Vector3 min, Vector3 max) { extents = (max - min) * 0.5f; center = min + extents; }
        public bool Intersects(Bounds o)
        {
            return min.x <= o.max.x && max.x >= o.min.x && min.y <= o.max.y && max.y >= o.min.y && min.z <= o.max.z && max.z >= o.min.z;
        }
    }

    /// Column vectors; m<row><column>; the indexer is [row, column], as Unity's.
    public struct Matrix4x4
    {
        public float m00, m10, m20, m30, m01, m11, m21, m31, m02, m12, m22, m32, m03, m13, m23, m33;
        public float this[int row, int column]
        {
            get { return this[row + column * 4]; }
            set { this[row + column * 4] = value; }
        }
        /// Column-major index, as Unity's.
        public float this[int index]
        {
            get
            {
                switch (index)
                {
                    case 0: return m00; case 1: return m10; case 2: return m20; case 3: return m30;
                    case 4: return m01; case 5: return m11; case 6: return m21; case 7: return m31;
                    case 8: return m02; case 9: return m12; case 10: return m22; case 11: return m32;
                    case 12: return m03; case 13: return m13; case 14: return m23; case 15: return m33;
                    default: throw new IndexOutOfRangeException("Invalid matrix index!");
                }
            }
            set
            {
                switch (index)
                {
                    case 0: m00 = value; break; case 1: m10 = value; break; case 2: m20 = value; break; case 3: m30 = value; break;
                    case 4: m01 = value; break; case 5: m11 = value; break; case 6: m21 = value; break; case 7: m31 = value; break;
                    case 8: m02 = value; break; case 9: m12 = value; break; case 10: m22 = value; break; case 11: m32 = value; break;
                    case 12: m03 = value; break; case 13: m13 = value; break; case 14: m23 = value; break; case 15: m33 = value; break;
                    default: throw new IndexOutOfRangeException("Invalid matrix index!");
                }
            }
        }
        public static Matrix4x4 identity { get { Matrix4x4 m = new Matrix4x4(); m.m00 = m.m11 = m.m22 = m.m33 = 1; return m; } }
        public static Matrix4x4 operator *(Matrix4x4 a, Matrix4x4 b)
        {
            Matrix4x4 r = new Matrix4x4();
            for (int i = 0; i < 4; i++)
                for (int j = 0; j < 4; j++)
                {
                    float s = 0;
                    for (int k = 0; k < 4; k++) s += a[i, k] * b[k, j];
                    r[i, j] = s;
                }
            return r;
        }
        public static Vector4 operator *(Matrix4x4 m, Vector4 v)
        {
            return new Vector4(m.m00 * v.x + m.m01 * v.y + m.m02 * v.z + m.m03 * v.w, m.m10 * v.x + m.m11 * v.y + m.m12 * v.z + m.m13 * v.w,
                               m.m20 * v.x + m.m21 * v.y + m.m22 * v.z + m.m23 * v.w, m.m30 * v.x + m.m31 * v.y + m.m32 * v.z + m.m33 * v.w);
        }
        public Vector3 MultiplyPoint3x4(Vector3 p)
        {
            return new Vector3(m00 * p.x + m01 * p.y + m02 * p.z + m03, m10 * p.x + m11 * p.y + m12 * p.z + m13, m20 * p.x + m21 * p.y + m22 * p.z + m23);
        }
        public static Matrix4x4 TRS(Vector3 t, Quaternion q, Vector3 s)
        {
            Matrix4x4 m = identity;
            Vector3 cx = q * new Vector3(s.x, 0, 0), cy = q * new Vector3(0, s.y, 0), cz = q * new Vector3(0, 0, s.z);
            m.m00 = cx.x; m.m10 = cx.y; m.m20 = cx.z;
            m.m01 = cy.x; m.m11 = cy.y; m.m21 = cy.z;
            m.m02 = cz.x; m.m12 = cz.y; m.m22 = cz.z;
            m.m03 = t.x; m.m13 = t.y; m.m23 = t.z;
            return m;
        }
        public static Matrix4x4 Perspective(float fov, float aspect, float near, float far)
        {
            float f = (float)(1 / Math.Tan(fov * Math.PI / 360));
            Matrix4x4 m = new Matrix4x4();
            m.m00 = f / aspect; m.m11 = f;
            m.m22 = (far + near) / (near - far); m.m23 = 2 * far * near / (near - far);
            m.m32 = -1;
            return m;
        }
        /// Inverse of a rigid transform with uniform scale one (all the stub needs).
        public Matrix4x4 inverse
        {
            get
            {
                Matrix4x4 r = identity;
                for (int i = 0; i < 3; i++)
                    for (int j = 0; j < 3; j++) r[i, j] = this[j, i];
                for (int i = 0; i < 3; i++) r[i, 3] = -(r[i, 0] * m03 + r[i, 1] * m13 + r[i, 2] * m23);
                return r;
            }
        }
    }

    public static class Mathf
    {
        public const float PI = (float)Math.PI;
        public const float Deg2Rad = PI / 180;
        public static float Sin(float a) { return (float)Math.Sin(a); }
        public static float Cos(float a) { return (float)Math.Cos(a); }
        public static float Abs(float a) { return Math.Abs(a); }
        public static float Min(float a, float b) { return Math.Min(a, b); }
        public static float Max(float a, float b) { return Math.Max(a, b); }
        public static float Clamp(float v, float lo, float hi) { return v < lo ? lo : v > hi ? hi : v; }
    }

    /// Counts what would be drawn.
    public static class Gizmos
    {
        public static Color color;
        public static Matrix4x4 matrix = Matrix4x4.identity;
        public static int lines, cubes;
        public static void DrawLine(Vector3 from, Vector3 to) { lines++; }
        public static void DrawWireCube(Vector3 center, Vector3 size) { cubes++; }
        public static void DrawCube(Vector3 center, Vector3 size) { cubes++; }
    }

    public static class Debug
    {
        public static readonly List<string> messages = new List<string>();
        public static void Log(object message) { messages.Add(message == null ? "null" : message.ToString()); }
        public static void LogWarning(object message) { Log(message); }
        public static void LogError(object message) { Log(message); }
    }

    public static class Time
    {
        public static float deltaTime = 1f / 60;
        public static int frameCount;
    }

    [AttributeUsage(AttributeTargets.Field)]
    public sealed class RangeAttribute : Attribute
    {
        public readonly float min, max;
        public RangeAttribute(float min, float max) { this.min = min; this.max = max; }
    }

    [AttributeUsage(AttributeTargets.Field)]
    public sealed class TooltipAttribute : Attribute
    {
        public readonly string tooltip;
        public TooltipAttribute(string tooltip) { this.tooltip = tooltip; }
    }

    [AttributeUsage(AttributeTargets.Field)]
    public sealed class SerializeField : Attribute { }

    [AttributeUsage(AttributeTargets.Class, AllowMultiple = true)]
    public sealed class RequireComponent : Attribute
    {
        public RequireComponent(Type type) { }
    }
}

namespace UnityEngine.TestSupport
{
    /// Sends Unity's messages (Awake, Start, Update...) the way the engine does: by name, public or not. Bind makes
    /// the call once, so that sending it each frame allocates nothing.
    public static class Messages
    {
        public static Action Bind(object target, string message)
        {
            MethodInfo m = target.GetType().GetMethod(message, BindingFlags.Instance | BindingFlags.Public | BindingFlags.NonPublic);
            if (m == null) return () => { };
            return (Action)Delegate.CreateDelegate(typeof(Action), target, m);
        }
        public static void Send(object target, string message) { Bind(target, message)(); }
    }
}
