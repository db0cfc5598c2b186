// SPDX-License-Identifier: MIT
// The scene-management scene: a map's objects are loaded as they come into the camera's view and unloaded once
// they have left it. The article indexes the objects' Bounds in a quadtree on the ground plane, walks the nodes
// whose bounds the camera's clip-space outcodes do not reject, and loads what they hold; here the library's
// Streamer does it: an octree of the objects' Bounds, the camera's frustum (and a prefetch ball around it) each
// frame, loads nearest first within caps, and unloads (and cancelled loads) for what left the view. Loading is
// simulated as the article's ResourcesManager.LoadAsync would be: a load completes `loadFrames` frames after it was
// asked for; a real game instantiates there and calls MarkLoaded when its asset has arrived.
//
// Use: add this component to an empty GameObject and press Play; it walks the Main Camera (or a camera of its own)
// round the map unless `walk` is off. Turn Gizmos on: loaded objects are blue, loading ones yellow.
using System.Collections.Generic;
using UnityEngine;
using Quadrant;

namespace Quadrant.Samples
{
    public class SceneStreamingSample : MonoBehaviour
    {
        [Tooltip("The map: objects are placed on its ground, y = its bottom.")]
        public Bounds map = new Bounds(new Vector3(0, 50, 0), new Vector3(1000, 100, 1000));
        [Tooltip("How many objects.")]
        [Range(1, 100000)] public int count = 2000;
        [Tooltip("Seed of the objects' places and sizes.")]
        public int seed = 1;
        [Tooltip("The camera that streams; the Main Camera when empty.")]
        public Camera viewer;
        [Tooltip("Walk the camera round the map, as the article's role walks.")]
        public bool walk = true;
        [Tooltip("Units a second the camera walks.")]
        public float walkSpeed = 40;
        [Tooltip("Load what lies within this distance of the camera too (behind it, round a corner).")]
        public float prefetchRadius = 30;
        [Tooltip("How far past the view a loaded object stays loaded: no flicker at the edge.")]
        public float unloadMargin = 10;
        [Tooltip("Loads asked for in one frame, at most.")]
        public int maxLoadsPerFrame = 32;
        [Tooltip("Loads under way, at most.")]
        public int maxLoadsInFlight = 64;
        [Tooltip("Frames a simulated load takes.")]
        public int loadFrames = 3;

        [Tooltip("Objects loaded now.")]
        public int loaded;
        [Tooltip("Objects loading now.")]
        public int loading;
        [Tooltip("Loads, unloads and cancels of the last frame.")]
        public int loadsLastFrame, unloadsLastFrame, cancelsLastFrame;

        /// An object's state as this component knows it.
        public enum Residency : byte { Unloaded, Loading, Loaded }

        Streamer streamer;
        readonly StreamUpdate update = new StreamUpdate();
        Bounds[] bounds;
        Residency[] residency;
        int[] loadDone; // the frame a simulated load completes
        List<int> inFlight;
        int frame;
        float walked;

        /// The objects (for tools and tests).
        public int Count { get { return bounds == null ? 0 : bounds.Length; } }
        /// Object i's bounds.
        public Bounds BoundsOf(int i) { return bounds[i]; }
        /// Object i's state.
        public Residency StateOf(int i) { return residency[i]; }
        /// The camera that streams.
        public Camera Viewer { get { return viewer; } }

        void Awake()
        {
            if (viewer == null) viewer = Camera.main;
            if (viewer == null) viewer = new GameObject("Streaming camera").AddComponent<Camera>();
            Vector3 low = map.min, high = map.max;
            streamer = new Streamer(new Box3(map), unloadMargin: unloadMargin,
                                    maxLoadsPerUpdate: maxLoadsPerFrame, maxLoadsInFlight: maxLoadsInFlight);
            var random = new System.Random(seed);
            bounds = new Bounds[count];
            residency = new Residency[count];
            loadDone = new int[count];
            inFlight = new List<int>(maxLoadsInFlight);
            // Sized up front, so that no frame allocates for them: a frame loads at most maxLoadsPerFrame and cancels
            // at most the loads in flight; unloads grow the list only when more leave the view at once than ever.
            update.Loads.Capacity = maxLoadsPerFrame;
            update.Cancels.Capacity = maxLoadsInFlight;
            update.Unloads.Capacity = 256;
            for (int i = 0; i < count; i++)
            {
                // Houses, trees and rocks: 2 to 20 units across, 2 to 30 high, standing on the ground.
                var size = new Vector3(Between(random, 2, 20), Between(random, 2, 30), Between(random, 2, 20));
                var foot = new Vector3(Between(random, low.x + size.x / 2, high.x - size.x / 2), low.y,
                                       Between(random, low.z + size.z / 2, high.z - size.z / 2));
                bounds[i] = new Bounds(foot + new Vector3(0, size.y / 2, 0), size);
                streamer.Add((ulong)i, new Box3(bounds[i]));
            }
        }

        void OnDestroy()
        {
            if (streamer != null) streamer.Dispose();
            streamer = null;
        }

        void Update()
        {
            frame++;
            if (walk) Walk();

            // The camera's frustum (Unity's projection matrix is OpenGL-style on every graphics API) and its position.
            Matrix4x4 viewProjection = viewer.projectionMatrix * viewer.worldToCameraMatrix;
            streamer.Update(StreamSource.Camera(viewProjection, viewer.transform.position, prefetchRadius), update);

            for (int k = 0; k < update.Unloads.Count; k++)
            {
                residency[(int)update.Unloads[k]] = Residency.Unloaded; // a game destroys or pools its object here
                loaded--;
            }
            for (int k = 0; k < update.Cancels.Count; k++)
            {
                int id = (int)update.Cancels[k];
                residency[id] = Residency.Unloaded;
                inFlight.Remove(id);
            }
            for (int k = 0; k < update.Loads.Count; k++)
            {
                int id = (int)update.Loads[k].Id;
                residency[id] = Residency.Loading;
                loadDone[id] = frame + loadFrames;
                inFlight.Add(id);
            }
            loadsLastFrame = update.Loads.Count;
            unloadsLastFrame = update.Unloads.Count;
            cancelsLastFrame = update.Cancels.Count;

            // The simulated loads that completed this frame.
            for (int k = inFlight.Count - 1; k >= 0; k--)
            {
                int id = inFlight[k];
                if (loadDone[id] > frame) continue;
                if (streamer.MarkLoaded((ulong)id))
                {
                    residency[id] = Residency.Loaded;
                    loaded++;
                }
                inFlight.RemoveAt(k);
            }
            loading = inFlight.Count;
        }

        // Round the map at a fifth of its size from the edge, 20 units up, looking ahead and a little down.
        void Walk()
        {
            walked += walkSpeed * Time.deltaTime;
            Vector3 c = map.center;
            float radius = Mathf.Min(map.extents.x, map.extents.z) * 0.6f, angle = walked / radius;
            Vector3 here = new Vector3(c.x + radius * Mathf.Cos(angle), map.min.y + 20, c.z + radius * Mathf.Sin(angle));
            Vector3 ahead = new Vector3(-Mathf.Sin(angle), -0.15f, Mathf.Cos(angle));
            viewer.transform.position = here;
            viewer.transform.LookAt(here + ahead);
        }

        void OnDrawGizmos()
        {
            if (bounds == null) return;
            Gizmos.color = Color.gray;
            Gizmos.DrawWireCube(map.center, map.size);
            for (int i = 0; i < bounds.Length; i++)
            {
                if (residency[i] == Residency.Unloaded) continue;
                Gizmos.color = residency[i] == Residency.Loaded ? Color.blue : Color.yellow;
                Gizmos.DrawWireCube(bounds[i].center, bounds[i].size);
            }
        }

        static float Between(System.Random random, float low, float high) { return low + (float)random.NextDouble() * (high - low); }
    }
}
