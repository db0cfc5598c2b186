// SPDX-License-Identifier: MIT
// quadrant for C#: ContactTracker, which pairs of one tree began and ended overlapping since the last step
// (Unity's OnTriggerEnter / OnTriggerExit, Box2D's begin / end touch events), over the C API.
using System;
using System.Collections.Generic;
using System.Runtime.InteropServices;

namespace Quadrant
{
    /// <summary>Tracks the overlapping pairs of one tree from step to step: each Update finds the step's pairs and
    /// compares them with the last step's. Begun: overlapping now and not before; Ended: before and not now (moved
    /// apart, left the layers, or erased: that handle is then stale). Every list is sorted by (A.Slot, B.Slot), so
    /// the events do not depend on the tree's layout or placement. O(pairs) a step; no allocation once warm.
    /// Threads: one thread at a time, and the tree not changed during Update.</summary>
    public sealed class ContactTracker : IDisposable
    {
        readonly ContactsSafeHandle contacts;
        // The tree of the previous steps, by identity: the C API compares addresses, which a tree disposed and
        // another made in its memory would share.
        TreeSafeHandle followed;

        /// <summary>A tracker with no contacts: its first update reports every pair as begun.</summary>
        public ContactTracker()
        {
            Native.Status status = Native.quadrant_contacts_create(out contacts);
            if (status != Native.Status.Ok) { contacts.Dispose(); Native.Check(status); }
        }
        /// <summary>Frees the native tracker (a SafeHandle; its finalizer does it if Dispose is never called).
        /// Later calls throw ObjectDisposedException; Dispose again does nothing.</summary>
        public void Dispose() { contacts.Dispose(); }
        /// <summary>True after Dispose.</summary>
        public bool IsDisposed { get { return contacts.IsClosed; } }
        ContactsSafeHandle Ptr
        {
            get
            {
                if (contacts.IsClosed) throw new ObjectDisposedException("quadrant ContactTracker");
                return contacts;
            }
        }

        /// <summary>One step over the tree's pairs in `layers`: adds the pairs that began to `begun`, those that
        /// ended to `ended`, and (when not null) every pair overlapping now to `current`; returns how many pairs
        /// overlap now. ArgumentException, with the tracker and the lists unchanged, for another tree than the
        /// previous steps' (Clear first to follow another tree; a disposed tree followed by a new one is another
        /// tree, even at the same address).</summary>
        public int Update<T>(SpatialTree<T> tree, List<Contact> begun, List<Contact> ended, List<Contact> current = null, uint layers = 0xffffffffu)
        {
            return Step(tree, layers, null, begun, ended, current);
        }
        /// <summary>One step over the pairs the layer matrix lets through; as Update with layers.</summary>
        public int Update<T>(SpatialTree<T> tree, LayerMatrix matrix, List<Contact> begun, List<Contact> ended, List<Contact> current = null)
        {
            if (matrix == null) throw new ArgumentNullException("matrix");
            return Step(tree, 0, matrix, begun, ended, current);
        }
        int Step<T>(SpatialTree<T> tree, uint layers, LayerMatrix matrix, List<Contact> begun, List<Contact> ended, List<Contact> current)
        {
            if (tree == null) throw new ArgumentNullException("tree");
            if (begun == null) throw new ArgumentNullException("begun");
            if (ended == null) throw new ArgumentNullException("ended");
            ContactsSafeHandle self = Ptr;
            TreeSafeHandle t = tree.Ptr;
            if (followed != null && !ReferenceEquals(followed, t))
                throw new ArgumentException("quadrant: contacts: update: another tree than the previous steps' (call Clear to switch)");
            Native.ContactStep s;
            Native.Check(Native.quadrant_contacts_update(self, t, layers, matrix == null ? null : matrix.Partners, out s));
            followed = t;
            Read(s.Begun, (int)(ulong)s.BegunCount, begun);
            Read(s.Ended, (int)(ulong)s.EndedCount, ended);
            if (current != null) Read(s.Contacts, (int)(ulong)s.ContactCount, current);
            return (int)(ulong)s.ContactCount;
        }
        // quadrant_contact: a (8 bytes), b (8).
        static void Read(IntPtr p, int n, List<Contact> into)
        {
            for (int i = 0; i < n; ++i)
                into.Add(new Contact(new Handle((ulong)Marshal.ReadInt64(p, 16 * i)), new Handle((ulong)Marshal.ReadInt64(p, 16 * i + 8))));
        }
        /// <summary>Forgets every contact and the tree: the next update reports all of its pairs as begun.</summary>
        public void Clear()
        {
            Native.Check(Native.quadrant_contacts_clear(Ptr));
            followed = null;
        }
    }
}
