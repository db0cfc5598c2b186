// SPDX-License-Identifier: MIT
// quadrant for C#: conversions from System.Numerics' Vector2 and Vector3 (floats: exact as doubles). Needs a
// reference to System.Numerics (mono: -r:System.Numerics; .NET and Unity 2021.2+ have it); define
// QUADRANT_NO_NUMERICS to build without it.
#if !QUADRANT_NO_NUMERICS
using SysVector2 = System.Numerics.Vector2;
using SysVector3 = System.Numerics.Vector3;

namespace Quadrant
{
    public partial struct Box2
    {
        /// <summary>The box from min to max (System.Numerics).</summary>
        public Box2(SysVector2 min, SysVector2 max) { MinX = min.X; MinY = min.Y; MaxX = max.X; MaxY = max.Y; }
        /// <summary>The low corner as a System.Numerics vector (rounded to float).</summary>
        public SysVector2 Min { get { return new SysVector2((float)MinX, (float)MinY); } }
        /// <summary>The high corner as a System.Numerics vector (rounded to float).</summary>
        public SysVector2 Max { get { return new SysVector2((float)MaxX, (float)MaxY); } }
    }

    public partial struct Box3
    {
        /// <summary>The box from min to max (System.Numerics).</summary>
        public Box3(SysVector3 min, SysVector3 max) { MinX = min.X; MinY = min.Y; MinZ = min.Z; MaxX = max.X; MaxY = max.Y; MaxZ = max.Z; }
        /// <summary>The low corner as a System.Numerics vector (rounded to float).</summary>
        public SysVector3 Min { get { return new SysVector3((float)MinX, (float)MinY, (float)MinZ); } }
        /// <summary>The high corner as a System.Numerics vector (rounded to float).</summary>
        public SysVector3 Max { get { return new SysVector3((float)MaxX, (float)MaxY, (float)MaxZ); } }
    }

    public partial struct Shape
    {
        /// <summary>A 2D point (System.Numerics).</summary>
        public static Shape Point(SysVector2 p) { return Point(p.X, p.Y); }
        /// <summary>A 3D point (System.Numerics).</summary>
        public static Shape Point(SysVector3 p) { return Point(p.X, p.Y, p.Z); }
        /// <summary>A circle (System.Numerics center).</summary>
        public static Shape Circle(SysVector2 center, double radius) { return Circle(center.X, center.Y, radius); }
        /// <summary>A sphere (System.Numerics center).</summary>
        public static Shape Sphere(SysVector3 center, double radius) { return Sphere(center.X, center.Y, center.Z, radius); }
        /// <summary>A 2D segment from a to b (System.Numerics).</summary>
        public static Shape Segment(SysVector2 a, SysVector2 b) { return Segment(a.X, a.Y, b.X, b.Y); }
        /// <summary>A 3D segment from a to b (System.Numerics).</summary>
        public static Shape Segment(SysVector3 a, SysVector3 b) { return Segment(a.X, a.Y, a.Z, b.X, b.Y, b.Z); }
    }

    public partial struct StreamSource
    {
        /// <summary>A position alone with its prefetch radius (System.Numerics).</summary>
        public static StreamSource Ball(SysVector3 position, double prefetchRadius) { return Ball(position.X, position.Y, position.Z, prefetchRadius); }
    }
}
#endif
