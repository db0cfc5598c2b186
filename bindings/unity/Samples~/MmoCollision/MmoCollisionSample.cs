// SPDX-License-Identifier: MIT
// The MMO collision scene: boxes bounce inside a rectangle, and every frame the quadtree finds which of them
// overlap; those are drawn red. The article's quadtree is rebuilt each frame, keeps a box that straddles a split in
// the parent node, limits its depth, pools its nodes and counts its tests (300 boxes: 90000 tests without a tree);
// here the same tree (Placement.Parent, maxDepth) moves each box in place, pools its nodes natively, and reports
// each overlapping pair once.
//
// Use: add this component to an empty GameObject, press Play, turn Gizmos on in the Game view. The counters below
// show in the Inspector.
using System.Collections.Generic;
using System.Diagnostics;
using UnityEngine;
using Quadrant;

namespace Quadrant.Samples
{
    public class MmoCollisionSample : MonoBehaviour
    {
        [Tooltip("The rectangle the boxes bounce in (x, y plane).")]
        public Rect area = new Rect(0, 0, 120, 80);
        [Tooltip("How many boxes.")]
        [Range(1, 5000)] public int count = 300;
        [Tooltip("The tree's depth limit; 0 makes it a list (every box tested against every other).")]
        [Range(0, 10)] public int maxDepth = 4;
        [Tooltip("Seed of the boxes' sizes, places and speeds.")]
        public int seed = 1;
        [Tooltip("Draw the tree's cells (the article's grid).")]
        public bool showGrid = true;

        [Tooltip("Pairs of boxes that overlap in the last frame.")]
        public int overlappingPairs;
        [Tooltip("Boxes that overlap another box in the last frame.")]
        public int collidingBoxes;
        [Tooltip("Milliseconds the last frame's moves and pair search took.")]
        public float milliseconds;
        [Tooltip("Box tests of one query per box, counted every 30 frames as the article counts them: without a tree (depth 0), 300 boxes make 90000.")]
        public long boxTests;
        [Tooltip("Cells of the tree drawn in the last OnDrawGizmos.")]
        public int cellsDrawn;

        QuadTree<int> tree;
        Vector2[] position, halfSize, speed;
        Handle[] handles;
        bool[] colliding;
        System.Func<int, int, bool> onPair; // made once: a lambda per frame would allocate
        readonly List<NodeInfo> nodes = new List<NodeInfo>();
        readonly List<int> found = new List<int>();
        int framesToCount;
        readonly Stopwatch clock = new Stopwatch();

        /// The boxes in use (for tools and tests).
        public int Count { get { return position == null ? 0 : position.Length; } }
        /// Box i as the tree has it.
        public Box2 BoxOf(int i)
        {
            return new Box2(position[i].x - halfSize[i].x, position[i].y - halfSize[i].y,
                            position[i].x + halfSize[i].x, position[i].y + halfSize[i].y);
        }
        /// True when box i overlapped another box in the last frame.
        public bool IsColliding(int i) { return colliding[i]; }

        void Awake()
        {
            tree = new QuadTree<int>(new Box2(area.xMin, area.yMin, area.xMax, area.yMax),
                                     placement: Placement.Parent, maxDepth: maxDepth);
            onPair = OnPair;
            var random = new System.Random(seed);
            position = new Vector2[count];
            halfSize = new Vector2[count];
            speed = new Vector2[count];
            handles = new Handle[count];
            colliding = new bool[count];
            for (int i = 0; i < count; i++)
            {
                // The article's boxes: 1 to 3 units a side, 5 units from the border, 3 to 12 units a second.
                halfSize[i] = new Vector2(Between(random, 0.5f, 1.5f), Between(random, 0.5f, 1.5f));
                position[i] = new Vector2(Between(random, area.xMin + 5, area.xMax - 5), Between(random, area.yMin + 5, area.yMax - 5));
                speed[i] = new Vector2(Between(random, 3, 12) * Sign(random), Between(random, 3, 12) * Sign(random));
                handles[i] = tree.Insert(BoxOf(i), i);
            }
        }

        void OnDestroy()
        {
            if (tree != null) tree.Dispose();
            tree = null;
        }

        void Update()
        {
            float dt = Time.deltaTime;
            for (int i = 0; i < position.Length; i++)
            {
                Vector2 next = position[i] + speed[i] * dt;
                if (next.x - halfSize[i].x < area.xMin || next.x + halfSize[i].x > area.xMax) speed[i].x = -speed[i].x;
                if (next.y - halfSize[i].y < area.yMin || next.y + halfSize[i].y > area.yMax) speed[i].y = -speed[i].y;
                position[i] += speed[i] * dt;
            }
        }

        void LateUpdate()
        {
            clock.Reset();
            clock.Start();
            for (int i = 0; i < position.Length; i++)
            {
                tree.Move(handles[i], BoxOf(i));
                colliding[i] = false;
            }
            collidingBoxes = 0;
            overlappingPairs = tree.ForEachPair(onPair);
            clock.Stop();
            milliseconds = (float)clock.Elapsed.TotalMilliseconds;

            // The article's traversal count: each box asks the tree what its box meets; LastQuery says how many boxes
            // that query tested.
            if (--framesToCount > 0) return;
            framesToCount = 30;
            boxTests = 0;
            for (int i = 0; i < position.Length; i++)
            {
                found.Clear();
                tree.Query(Shape.Box(BoxOf(i)), found);
                boxTests += tree.LastQuery.BoxTests;
            }
        }

        bool OnPair(int a, int b)
        {
            if (!colliding[a]) collidingBoxes++;
            if (!colliding[b]) collidingBoxes++;
            colliding[a] = colliding[b] = true;
            return true;
        }

        void OnDrawGizmos()
        {
            if (position == null) return;
            Gizmos.color = Color.cyan;
            DrawRect(area);
            cellsDrawn = 0;
            if (showGrid)
            {
                // Every node's cell, as the article draws its grid: the tree splits only where boxes crowd.
                nodes.Clear();
                tree.Nodes(nodes);
                for (int i = 0; i < nodes.Count; i++) DrawRect(nodes[i].Cell.XY);
                cellsDrawn = nodes.Count;
            }
            for (int i = 0; i < position.Length; i++)
            {
                Gizmos.color = colliding[i] ? Color.red : Color.white;
                DrawRect(BoxOf(i));
            }
        }

        static void DrawRect(Rect r)
        {
            Gizmos.DrawWireCube(new Vector3(r.center.x, r.center.y, 0), new Vector3(r.width, r.height, 0));
        }

        static void DrawRect(Box2 b)
        {
            DrawRect(Rect.MinMaxRect((float)b.MinX, (float)b.MinY, (float)b.MaxX, (float)b.MaxY));
        }

        static float Between(System.Random random, float low, float high) { return low + (float)random.NextDouble() * (high - low); }
        static float Sign(System.Random random) { return random.Next(2) == 0 ? -1 : 1; }
    }
}
