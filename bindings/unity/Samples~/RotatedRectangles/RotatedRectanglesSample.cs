// SPDX-License-Identifier: MIT
// The rotated-rectangles scene: rectangles turned by up to 30 degrees each way are stored, by their bounding boxes,
// in every leaf of the quadtree they touch (a leaf splits past 4 rectangles, down to depth 4, as in the article);
// the tree reports each pair of overlapping boxes once, with no duplicates to weed out, and the separating axis
// theorem then tells which rectangles really overlap: those are drawn red. With `benchmark` on, 10 rectangles are
// added a frame until the collision pass costs 100 ms (the article's benchmark).
//
// Use: add this component to an empty GameObject, press Play, turn Gizmos on in the Game view. The counters below
// show in the Inspector.
using System.Diagnostics;
using UnityEngine;
using Quadrant;

namespace Quadrant.Samples
{
    public class RotatedRectanglesSample : MonoBehaviour
    {
        [Tooltip("The square the rectangles are placed in (x, y plane).")]
        public Rect area = new Rect(-10, -10, 20, 20);
        [Tooltip("How many rectangles to reach, 10 more a frame.")]
        [Range(0, 100000)] public int count = 300;
        [Tooltip("Grow count by 10 a frame until the collision pass costs `budgetMilliseconds`.")]
        public bool benchmark;
        [Tooltip("The frame cost that stops the benchmark.")]
        public float budgetMilliseconds = 100;
        [Tooltip("Seed of the rectangles' sizes, places and angles.")]
        public int seed = 1;
        [Tooltip("Draw the tree's cells, coloured by depth (as the article does).")]
        public bool showTree = true;

        [Tooltip("Pairs whose bounding boxes overlap: the tests the separating axis theorem ran.")]
        public int boxPairs;
        [Tooltip("Pairs of rectangles that really overlap.")]
        public int overlappingPairs;
        [Tooltip("Milliseconds the last collision pass took.")]
        public float milliseconds;
        [Tooltip("Cells of the tree drawn in the last OnDrawGizmos.")]
        public int cellsDrawn;

        QuadTree<int> tree;
        System.Random random;
        // One rectangle: center, half extents, angle (radians, counter-clockwise), and its corners, counter-clockwise.
        Vector2[] center = new Vector2[0], half = new Vector2[0], corners = new Vector2[0];
        float[] angle = new float[0];
        bool[] colliding = new bool[0];
        int used;
        System.Func<int, int, bool> onPair;
        readonly System.Collections.Generic.List<NodeInfo> nodes = new System.Collections.Generic.List<NodeInfo>();
        readonly Stopwatch clock = new Stopwatch();

        /// The rectangles in use (for tools and tests).
        public int Count { get { return used; } }
        /// The four corners of rectangle i, counter-clockwise, into `into` (length 4 or more).
        public void CornersOf(int i, Vector2[] into) { System.Array.Copy(corners, i * 4, into, 0, 4); }
        /// True when rectangle i overlapped another in the last pass.
        public bool IsColliding(int i) { return colliding[i]; }

        void Awake()
        {
            // Leaves: a rectangle in every leaf it touches; a leaf splits past 4, down to depth 4.
            tree = new QuadTree<int>(new Box2(area.xMin, area.yMin, area.xMax, area.yMax), placement: Placement.Leaves,
                                     maxDepth: 4, splitThreshold: 4);
            random = new System.Random(seed);
            onPair = OnPair;
        }

        void OnDestroy()
        {
            if (tree != null) tree.Dispose();
            tree = null;
        }

        void Update()
        {
            for (int i = 0; i < 10 && used < count; i++) AddRectangle();

            clock.Reset();
            clock.Start();
            for (int i = 0; i < used; i++) colliding[i] = false;
            overlappingPairs = 0;
            boxPairs = tree.ForEachPair(onPair);
            clock.Stop();
            milliseconds = (float)clock.Elapsed.TotalMilliseconds;

            if (benchmark)
            {
                if (milliseconds >= budgetMilliseconds) benchmark = false;
                else if (used >= count) count += 10;
            }
        }

        bool OnPair(int a, int b)
        {
            if (Overlap(corners, a, b))
            {
                colliding[a] = colliding[b] = true;
                overlappingPairs++;
            }
            return true;
        }

        /// True when the convex quadrilaterals a and b (corners 4a.. and 4b.. of `corners`) share a point: no edge
        /// normal of either separates their projections (touching counts, as boxes in the tree).
        public static bool Overlap(Vector2[] corners, int a, int b)
        {
            return !Separates(corners, a, b) && !Separates(corners, b, a);
        }

        static bool Separates(Vector2[] c, int owner, int other)
        {
            for (int e = 0; e < 2; e++) // a rectangle's four edges have two directions
            {
                Vector2 p = c[owner * 4 + e], q = c[owner * 4 + e + 1];
                float nx = p.y - q.y, ny = q.x - p.x;
                float minA = float.MaxValue, maxA = float.MinValue, minB = float.MaxValue, maxB = float.MinValue;
                for (int k = 0; k < 4; k++)
                {
                    float da = c[owner * 4 + k].x * nx + c[owner * 4 + k].y * ny;
                    float db = c[other * 4 + k].x * nx + c[other * 4 + k].y * ny;
                    minA = Mathf.Min(minA, da); maxA = Mathf.Max(maxA, da);
                    minB = Mathf.Min(minB, db); maxB = Mathf.Max(maxB, db);
                }
                if (maxA < minB || maxB < minA) return true;
            }
            return false;
        }

        void AddRectangle()
        {
            if (used == center.Length) Grow(System.Math.Max(64, used * 2));
            int i = used++;
            // The article's rectangles: 0.1 to 3 wide, 0.6 to 0.8 as high, turned -30 to 30 degrees.
            float width = Between(0.1f, 3), height = width * Between(0.6f, 0.8f);
            center[i] = new Vector2(Between(area.xMin, area.xMax), Between(area.yMin, area.yMax));
            half[i] = new Vector2(width / 2, height / 2);
            angle[i] = Between(-30, 30) * Mathf.Deg2Rad;
            float cos = Mathf.Cos(angle[i]), sin = Mathf.Sin(angle[i]);
            Vector2 u = new Vector2(cos, sin) * half[i].x, v = new Vector2(-sin, cos) * half[i].y;
            corners[i * 4] = center[i] - u - v;
            corners[i * 4 + 1] = center[i] + u - v;
            corners[i * 4 + 2] = center[i] + u + v;
            corners[i * 4 + 3] = center[i] - u + v;
            float minX = float.MaxValue, minY = float.MaxValue, maxX = float.MinValue, maxY = float.MinValue;
            for (int k = 0; k < 4; k++)
            {
                Vector2 p = corners[i * 4 + k];
                minX = Mathf.Min(minX, p.x); minY = Mathf.Min(minY, p.y);
                maxX = Mathf.Max(maxX, p.x); maxY = Mathf.Max(maxY, p.y);
            }
            tree.Insert(new Box2(minX, minY, maxX, maxY), i);
        }

        void Grow(int capacity)
        {
            System.Array.Resize(ref center, capacity);
            System.Array.Resize(ref half, capacity);
            System.Array.Resize(ref angle, capacity);
            System.Array.Resize(ref corners, capacity * 4);
            System.Array.Resize(ref colliding, capacity);
        }

        void OnDrawGizmos()
        {
            cellsDrawn = 0;
            if (showTree && tree != null)
            {
                nodes.Clear();
                tree.Nodes(nodes);
                for (int i = 0; i < nodes.Count; i++)
                {
                    // Hue by depth; each depth inset a little towards its low corner, so nested lines stay apart.
                    Box2 cell = nodes[i].Cell.XY;
                    float inset = nodes[i].Depth * area.width * 0.003f;
                    Gizmos.color = Color.HSVToRGB(nodes[i].Depth / 5f, 1, 1);
                    var low = new Vector2((float)cell.MinX + inset, (float)cell.MinY + inset);
                    var high = new Vector2((float)cell.MaxX, (float)cell.MaxY);
                    Gizmos.DrawLine(low, new Vector2(low.x, high.y));
                    Gizmos.DrawLine(new Vector2(low.x, high.y), high);
                    Gizmos.DrawLine(high, new Vector2(high.x, low.y));
                    Gizmos.DrawLine(new Vector2(high.x, low.y), low);
                }
                cellsDrawn = nodes.Count;
            }
            for (int i = 0; i < used; i++)
            {
                Gizmos.color = colliding[i] ? Color.red : Color.white;
                for (int k = 0; k < 4; k++) Gizmos.DrawLine(corners[i * 4 + k], corners[i * 4 + (k + 1) % 4]);
            }
        }

        float Between(float low, float high) { return low + (float)random.NextDouble() * (high - low); }
    }
}
