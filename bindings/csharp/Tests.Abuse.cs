// SPDX-License-Identifier: MIT
// Tests of the C# binding's new members under abuse: exceptions thrown by callbacks, bad input, disposed objects,
// and no allocation once warm.
using System;
using System.Collections.Generic;
using System.Linq;
using Quadrant;

static partial class Tests
{
}
