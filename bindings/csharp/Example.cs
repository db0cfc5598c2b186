// SPDX-License-Identifier: MIT
// The example of docs/bindings.md (C#): a quadtree of named boxes, a query, the colliding pairs, a ray cast, an
// area of interest with its events, and a streamer loading what a player comes near. Built and run by the tests.
using System;
using System.Collections.Generic;
using Quadrant;

static class Example
{
    static int Main()
    {
        using (var tree = new QuadTree<string>(new Box2(0, 0, 1200, 1200)))
        {
            Handle hero = tree.Insert(new Box2(100, 100, 120, 130), "hero");
            tree.Insert(new Box2(110, 120, 140, 150), "slime");
            tree.Insert(new Box2(900, 900, 920, 920), "dragon");

            var hits = new List<string>();
            tree.Query(Shape.Circle(110, 110, 50), hits);        // what is near the hero?
            Console.WriteLine("near the hero: " + string.Join(", ", hits));

            var pairs = new List<KeyValuePair<string, string>>();
            tree.Pairs(pairs);                                    // who collides with whom?
            foreach (var p in pairs) Console.WriteLine("collision: " + p.Key + " / " + p.Value);

            var rays = new List<RayHit<string>>();
            tree.Raycast(0, 0, 1000, 1000, rays, limit: 1);       // the first thing an arrow from (0, 0) hits
            Console.WriteLine("the arrow hits: " + rays[0].Value + " at t = " + rays[0].T);

            tree.Move(hero, new Box2(880, 880, 900, 910));        // the hero runs to the dragon
            pairs.Clear();
            tree.Pairs(pairs);
            Console.WriteLine("after the move: " + pairs.Count + " collision(s)");

            try { tree.Insert(new Box2(5, 5, 1, 1), "broken"); }  // min > max: refused, nothing changes
            catch (ArgumentException e) { Console.WriteLine("refused: " + e.Message); }
        }

        using (var aoi = new AoiWorld(new Box2(0, 0, 4096, 4096), hysteresis: 4))
        {
            aoi.Add(1, 100, 100, 120);                            // a player who sees 120 around
            aoi.Add(2, 150, 100, 120);                            // another one, 50 away
            var events = new List<AoiEvent>();
            aoi.Tick(events);
            foreach (var e in events) Console.WriteLine((e.Enter ? "enter " : "leave ") + e.Watcher + " sees " + e.Target);
            aoi.Move(2, 400, 100);                                // 300 away: they lose sight
            events.Clear();
            aoi.Tick(events);
            Console.WriteLine(events.Count + " leave events");
            if (events.Count != 2) return 1;
        }

        using (var streamer = new Streamer(new Box3(0, 0, 0, 1000, 100, 1000), unloadMargin: 10))
        {
            for (int i = 0; i < 10; ++i)                          // ten houses along x, 100 apart
                streamer.Add((ulong)i, new Box3(100 * i, 0, 0, 100 * i + 20, 10, 20));
            var update = new StreamUpdate();                      // reused every frame: no allocation once warm
            streamer.Update(StreamSource.Ball(250, 0, 10, 120), update);   // the player at x = 250 sees 120 around
            foreach (var load in update.Loads)
            {
                Console.WriteLine("load house " + load.Id + " (" + load.Distance + " away)");
                streamer.MarkLoaded(load.Id);                     // when your asynchronous load completes
            }
            streamer.Update(StreamSource.Ball(650, 0, 10, 120), update);   // the player walks on
            Console.WriteLine("unload " + string.Join(", ", update.Unloads) + "; load " + update.Loads.Count + " more");
            return update.Unloads.Count == 2 && update.Loads.Count == 2 ? 0 : 1;
        }
    }
}
