// SPDX-License-Identifier: MIT
// A game with its own QuadTree<T> (and a type of its own named Quadrant) beside the library: inside the game's
// namespace its own class wins, as C# resolves names, even with `using Quadrant;` (at the top of the file: inside
// a namespace that declares a type Quadrant, `using Quadrant;` names that type and does not compile); an alias
// reaches the library's. Compiled with the tests: if the library's names shadowed the game's, Check fails.
using Quadrant;
using QTree = Quadrant.QuadTree<int>;

namespace Game
{
    enum Quadrant { NorthEast, NorthWest, SouthWest, SouthEast }
    sealed class QuadTree<T> { public readonly string Owner = "game"; }

    static class Names
    {
        public static bool Check()
        {
            var mine = new QuadTree<int>();
            using (var library = new QTree(new Box2(0, 0, 10, 10)))
            {
                library.Insert(new Box2(1, 1, 2, 2), 7);
                var hits = new System.Collections.Generic.List<int>();
                library.Query(global::Quadrant.Shape.Point(1.5, 1.5), hits);
                return mine.Owner == "game" && hits.Count == 1 && Quadrant.SouthEast == (Quadrant)3;
            }
        }
    }
}
