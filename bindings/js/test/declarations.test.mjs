// SPDX-License-Identifier: MIT
// quadrant.d.ts against the module it describes: the TypeScript compiler API reads the declarations, and the test
// walks the runtime objects of the built module (the exports, the object load() gives, an instance of every class,
// what their calls return, the options each call accepts). It fails, naming the member, when the declarations
// promise a function, class, method or property the runtime lacks, when the runtime has a public one the
// declarations do not name, when a method's arity is outside what its declaration allows, when a declared method is
// a property at runtime (or the reverse), or when a getter without a setter is declared writable. Members whose
// names start with '_' are private by convention and not compared.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';

import load, * as nodeEntry from '../quadrant.node.mjs';
import * as browserEntry from '../quadrant.mjs';

const DTS = fileURLToPath(new URL('../quadrant.d.ts', import.meta.url));
const program = ts.createProgram([DTS], { target: ts.ScriptTarget.ES2022, strict: true, noEmit: true, types: [] });
const checker = program.getTypeChecker();
const source = program.getSourceFile(DTS);
const moduleSymbol = checker.getSymbolAtLocation(source);
const exported = new Map(checker.getExportsOfModule(moduleSymbol).map((s) => [s.getName(), s]));

const q = await load();

// ---- the declarations ----

const ownDeclaration = (symbol) => (symbol.declarations ?? []).some((d) => d.getSourceFile() === source);

// A member's name as the runtime spells it: computed names such as [Symbol.dispose] become the symbol.
function memberName(symbol) {
  const decl = symbol.declarations?.[0];
  if (decl?.name && ts.isComputedPropertyName(decl.name)) {
    const text = decl.name.expression.getText();
    const match = /^Symbol\.(\w+)$/.exec(text);
    if (match === null) throw new Error(`quadrant.d.ts: a computed member name the test cannot read: ${text}`);
    return Symbol[match[1]];
  }
  return symbol.getName();
}
const show = (name) => (typeof name === 'symbol' ? `[${name.description}]` : name);

// The arity a declaration allows: [required parameters, all parameters (Infinity with a rest parameter)], over
// every overload; a `this` parameter is not one.
function arity(declarations) {
  let required = Infinity, all = 0;
  for (const d of declarations) {
    const params = d.parameters.filter((p) => p.name.getText() !== 'this');
    required = Math.min(required, params.filter((p) => !p.questionToken && !p.initializer && !p.dotDotDotToken).length);
    all = Math.max(all, params.some((p) => p.dotDotDotToken) ? Infinity : params.length);
  }
  return [required, all];
}

/** What a type declares: name -> {kind: 'method' | 'property', readonly, optional, own, arity, type}. */
function declaredMembers(type) {
  const out = new Map();
  for (const symbol of checker.getPropertiesOfType(type)) {
    const decls = symbol.declarations ?? [];
    const methods = decls.filter((d) => ts.isMethodSignature(d) || ts.isMethodDeclaration(d));
    const readonly = decls.some((d) => d.modifiers?.some((m) => m.kind === ts.SyntaxKind.ReadonlyKeyword)) ||
      (symbol.flags & ts.SymbolFlags.GetAccessor) !== 0;
    const anchor = decls[0] ?? source;
    out.set(memberName(symbol), {
      kind: methods.length > 0 ? 'method' : 'property',
      readonly,
      optional: (symbol.flags & ts.SymbolFlags.Optional) !== 0,
      own: ownDeclaration(symbol),
      arity: methods.length > 0 ? arity(methods) : null,
      type: checker.getTypeOfSymbolAtLocation(symbol, anchor),
    });
  }
  return out;
}

function declaredType(name) {
  const symbol = exported.get(name);
  assert.ok(symbol, `quadrant.d.ts exports no ${name}`);
  const target = symbol.flags & ts.SymbolFlags.Alias ? checker.getAliasedSymbol(symbol) : symbol;
  return target.flags & (ts.SymbolFlags.Interface | ts.SymbolFlags.Class)
    ? checker.getDeclaredTypeOfSymbol(target) : checker.getTypeOfSymbolAtLocation(target, source);
}
const member = (type, name) => {
  const m = declaredMembers(type).get(name);
  assert.ok(m, `quadrant.d.ts: ${checker.typeToString(type)} declares no ${name}`);
  return m.type;
};
const returned = (type) => checker.getSignaturesOfType(checker.getNonNullableType(type), ts.SignatureKind.Call)[0].getReturnType();
const element = (type) => checker.getTypeArguments(type)[0];
const parameter = (type, i, kind = ts.SignatureKind.Call) =>
  checker.getNonNullableType(checker.getTypeOfSymbolAtLocation(
    checker.getSignaturesOfType(type, kind)[0].getParameters()[i], source));
const constructed = (type) => checker.getSignaturesOfType(type, ts.SignatureKind.Construct)[0];

// ---- the runtime ----

// Where a walk up the prototypes stops: the engine's objects (for a class's static side, its built-in parent).
const BUILTIN = new Set([Object.prototype, Function.prototype, Error.prototype, Object, Error, null]);

/** The public members of a runtime object: name -> {kind, setter, length}. Own enumerable data properties and
 * everything on its prototypes up to the built-in ones; names starting with '_' and `constructor` are private. For
 * a class's static side (statics), its own members but length, name and prototype. */
function runtimeMembers(obj, statics = false) {
  const out = new Map();
  const add = (name, desc) => {
    if (out.has(name) || (statics && ['length', 'name', 'prototype'].includes(name))) return;
    if (typeof name === 'string' && (name.startsWith('_') || name === 'constructor')) return;
    if (typeof name === 'symbol' && name !== Symbol.dispose) return;
    if (desc.get || desc.set) {
      out.set(name, { kind: 'property', setter: desc.set !== undefined, length: null });
    } else if (typeof desc.value === 'function' && !/^class\b/.test(Function.prototype.toString.call(desc.value))) {
      out.set(name, { kind: 'method', setter: desc.writable, length: desc.value.length });
    } else {
      out.set(name, { kind: 'property', setter: desc.writable, length: null });
    }
  };
  for (const name of Reflect.ownKeys(obj)) {
    const desc = Object.getOwnPropertyDescriptor(obj, name);
    if (statics || desc.enumerable) add(name, desc);
  }
  for (let p = Object.getPrototypeOf(obj); !BUILTIN.has(p); p = Object.getPrototypeOf(p)) {
    for (const name of Reflect.ownKeys(p)) add(name, Object.getOwnPropertyDescriptor(p, name));
  }
  return out;
}

/** Compares a runtime object with a declared type; returns the differences, each naming `where` and the member. */
function compare(where, obj, type, { data = false, statics = false } = {}) {
  const problems = [];
  const declared = declaredMembers(type), actual = runtimeMembers(obj, statics);
  // A class's static side declares its prototype.
  if (statics) declared.delete('prototype');
  // A type the compiler could not resolve (any, an error) would declare nothing and compare nothing.
  assert.ok(declared.size > 0 || statics, `${where}: quadrant.d.ts's type ${checker.typeToString(type)} declares no member`);
  for (const [name, d] of declared) {
    const a = actual.get(name);
    // Members inherited from the standard library (Error's stack and cause) are the engine's business.
    if (!d.own) continue;
    if (a === undefined) {
      if (!(data && d.optional) && !(name in obj)) problems.push(`${where}.${show(name)} is declared, the runtime lacks it`);
      continue;
    }
    if (d.kind !== a.kind) problems.push(`${where}.${show(name)} is declared a ${d.kind}, the runtime has a ${a.kind}`);
    if (d.kind === 'method' && a.kind === 'method') {
      const [required, all] = d.arity;
      if (a.length < required || a.length > all) {
        problems.push(`${where}.${show(name)}: the runtime function takes ${a.length} parameters, the declaration ` +
          `${required === all ? required : `${required} to ${all}`}`);
      }
    }
    if (d.kind === 'property' && !data && !a.setter && !d.readonly) {
      problems.push(`${where}.${show(name)} is read-only at runtime, the declaration lets it be assigned`);
    }
  }
  for (const name of actual.keys()) {
    if (!declared.has(name)) problems.push(`${where}.${show(name)} is public at runtime, quadrant.d.ts does not declare it`);
  }
  return problems;
}

// The keys an options object may hold, read from the error an unknown key draws ("unknown option ... (known: a, b)").
async function knownOptions(call) {
  try {
    await call({ probe__: 1 });
  } catch (e) {
    const match = /unknown option "probe__" \(known: ([^)]*)\)/.exec(e.message);
    if (match) return match[1].split(', ');
    throw e;
  }
  throw new Error('an unknown option was accepted');
}
function compareOptions(where, known, type) {
  const declared = [...declaredMembers(type).keys()];
  const problems = [];
  for (const k of declared) if (!known.includes(k)) problems.push(`${where}: option ${k} is declared, the runtime refuses it`);
  for (const k of known) if (!declared.includes(k)) problems.push(`${where}: option ${k} is accepted, quadrant.d.ts does not declare it`);
  return problems;
}

// ---- the comparisons ----

// One of each class, with an object or entity in it, so that calls return something to compare.
function specimens() {
  const tree = new q.QuadTree({ world: [0, 0, 100, 100] });
  tree.insert(1, 1, 2, 2, 'a');
  tree.insert(1.5, 1.5, 3, 3, 'b');
  const octree = new q.Octree({ world: [0, 0, 0, 100, 100, 100] });
  octree.insert(1, 1, 1, 2, 2, 2, 'c');
  const world = new q.AoiWorld({ world: [0, 0, 100, 100] });
  world.add(1, 10, 10, 20);
  world.add(2, 12, 10, 20);
  const streamer = new q.Streamer({ world: [0, 0, 0, 100, 100, 100] });
  streamer.add(1, 1, 1, 1, 2, 2, 2);
  const tracker = new q.ContactTracker();
  tracker.update(tree);
  return { tree, octree, world, streamer, tracker };
}
// An instance of each class, by the name quadrant.d.ts gives it.
function instancesOf(s) {
  return { QuadTree: s.tree, Octree: s.octree, AoiWorld: s.world, Streamer: s.streamer, ContactTracker: s.tracker,
    LayerMatrix: new q.LayerMatrix().set(0, 1), QuadrantError: new q.QuadrantError('m', 'logic_error') };
}

test('the module exports what quadrant.d.ts declares, under node and in browsers', () => {
  const values = [...exported.values()].filter((s) => {
    const target = s.flags & ts.SymbolFlags.Alias ? checker.getAliasedSymbol(s) : s;
    return (target.flags & ts.SymbolFlags.Value) !== 0;
  }).map((s) => s.getName());
  for (const [entry, mod] of [['quadrant.node.mjs', nodeEntry], ['quadrant.mjs', browserEntry]]) {
    assert.deepEqual(Object.keys(mod).sort(), values.sort(), `${entry}'s exports against quadrant.d.ts's values`);
    for (const name of values) {
      const problems = [];
      const type = declaredType(name === 'default' ? 'load' : name);
      const value = mod[name];
      const calls = checker.getSignaturesOfType(type, ts.SignatureKind.Call);
      if (calls.length > 0) {
        const [required, all] = arity(calls.map((c) => c.getDeclaration()));
        if (typeof value !== 'function') problems.push(`${name} is declared a function`);
        else if (value.length < required || value.length > all) problems.push(`${name} takes ${value.length} parameters`);
      } else if (typeof value === 'object' && value !== null) {
        problems.push(...compare(`${entry} ${name}`, value, type));
      }
      assert.deepEqual(problems, [], `${entry}: ${name}`);
    }
  }
  assert.equal(nodeEntry.default, nodeEntry.load);
  assert.equal(browserEntry.default, browserEntry.load);
});

test('load() gives what the Quadrant interface declares; each class what its interface declares', () => {
  const quadrant = declaredType('Quadrant');
  const problems = compare('q', q, quadrant);
  const s = specimens();
  const instances = instancesOf(s);
  for (const [name, d] of declaredMembers(quadrant)) {
    const signature = constructed(d.type);
    if (signature === undefined) continue;
    const Class = q[name];
    const [required, all] = arity([signature.getDeclaration()]);
    if (Class.length < required || Class.length > all) {
      problems.push(`new q.${name}: the constructor takes ${Class.length} parameters, the declaration ${required} to ${all}`);
    }
    const instance = instances[name];
    assert.ok(instance, `the test makes no ${name}`);
    assert.ok(instance instanceof Class);
    problems.push(...compare(name, instance, signature.getReturnType()));
  }
  // The classes the module exports itself (declare class): their static sides, and the same class on q.
  for (const [name, symbol] of exported) {
    if (!(symbol.flags & ts.SymbolFlags.Class)) continue;
    assert.equal(q[name], nodeEntry[name], `q.${name} is the module's ${name}`);
    problems.push(...compare(`${name} (static)`, nodeEntry[name], checker.getTypeOfSymbol(symbol), { statics: true }));
  }
  for (const x of Object.values(s)) x.dispose();
  assert.deepEqual(problems, []);
});

test('what the calls return has the fields quadrant.d.ts declares, no more', () => {
  const s = specimens();
  const quadTree = constructed(member(declaredType('Quadrant'), 'QuadTree')).getReturnType();
  const aoi = constructed(member(declaredType('Quadrant'), 'AoiWorld')).getReturnType();
  const streamer = constructed(member(declaredType('Quadrant'), 'Streamer')).getReturnType();
  const tracker = constructed(member(declaredType('Quadrant'), 'ContactTracker')).getReturnType();
  const update = s.streamer.update([{ position: [1, 1, 1], prefetchRadius: 5 }]);
  s.tree.queryBox(0, 0, 10, 10);
  const cases = [
    ['QuadTree.stats()', s.tree.stats(), returned(member(quadTree, 'stats'))],
    ['QuadTree.locate()', s.tree.locate(1, 1), returned(member(quadTree, 'locate'))],
    ['QuadTree.leaves()[0]', s.tree.leaves()[0], element(returned(member(quadTree, 'leaves')))],
    ['QuadTree.nearest()[0]', s.tree.nearest(0, 0, 1)[0], element(returned(member(quadTree, 'nearest')))],
    ['QuadTree.raycast()[0]', s.tree.raycast(0, 0, 5, 5)[0], element(returned(member(quadTree, 'raycast')))],
    ['QuadTree.lastQuery', s.tree.lastQuery, member(quadTree, 'lastQuery')],
    ['QuadTree.config', s.tree.config, member(quadTree, 'config')],
    ['AoiWorld.tick()[0]', s.world.tick()[0], element(returned(member(aoi, 'tick')))],
    ['Streamer.update()', update, returned(member(streamer, 'update'))],
    ['Streamer.update().stats', update.stats, member(returned(member(streamer, 'update')), 'stats')],
    ['Streamer.update().loads[0]', update.loads[0], element(member(returned(member(streamer, 'update')), 'loads'))],
    ['ContactTracker.update()', s.tracker.update(s.tree), returned(member(tracker, 'update'))],
    ['ContactTracker.contacts()[0]', s.tracker.contacts()[0], element(returned(member(tracker, 'contacts')))],
  ];
  const problems = [];
  for (const [where, value, type] of cases) {
    assert.ok(value !== undefined, `${where}: the test's specimen gives nothing to compare`);
    problems.push(...compare(where, value, type, { data: true }));
  }
  for (const x of Object.values(s)) x.dispose();
  assert.deepEqual(problems, []);
});

test('every options object accepts the keys quadrant.d.ts declares, no more', async () => {
  const s = specimens();
  const quadrant = declaredType('Quadrant');
  const quadTree = constructed(member(quadrant, 'QuadTree')).getReturnType();
  const octree = constructed(member(quadrant, 'Octree')).getReturnType();
  const aoi = constructed(member(quadrant, 'AoiWorld')).getReturnType();
  const streamer = constructed(member(quadrant, 'Streamer')).getReturnType();
  const streamSource = parameter(member(streamer, 'update'), 0);
  const cases = [
    ['load(options)', (o) => load(o), parameter(declaredType('load'), 0)],
    ['new QuadTree(options)', (o) => new q.QuadTree(o), parameter(member(quadrant, 'QuadTree'), 0, ts.SignatureKind.Construct)],
    ['new Octree(options)', (o) => new q.Octree(o), parameter(member(quadrant, 'Octree'), 0, ts.SignatureKind.Construct)],
    ['new AoiWorld(options)', (o) => new q.AoiWorld(o), parameter(member(quadrant, 'AoiWorld'), 0, ts.SignatureKind.Construct)],
    ['new Streamer(options)', (o) => new q.Streamer(o), parameter(member(quadrant, 'Streamer'), 0, ts.SignatureKind.Construct)],
    ['Shape.frustum(m, options)', (o) => q.Shape.frustum(new Array(16).fill(0), o), parameter(member(declaredType('Shape'), 'frustum'), 1)],
    ['QuadTree.raycast(..., options)', (o) => s.tree.raycast(0, 0, 1, 1, o), parameter(member(quadTree, 'raycast'), 4)],
    ['QuadTree.nearest(..., options)', (o) => s.tree.nearest(0, 0, 1, o), parameter(member(quadTree, 'nearest'), 3)],
    ['Octree.raycast(..., options)', (o) => s.octree.raycast(0, 0, 0, 1, 1, 1, o), parameter(member(octree, 'raycast'), 6)],
    ['Octree.nearest(..., options)', (o) => s.octree.nearest(0, 0, 0, 1, o), parameter(member(octree, 'nearest'), 4)],
    ['AoiWorld.add(..., options)', (o) => s.world.add(9, 0, 0, 1, o), parameter(member(aoi, 'add'), 4)],
    ['Streamer.update([source])', (o) => s.streamer.update([o]), element(streamSource)],
    ['Streamer.update([{frustum}])', (o) => s.streamer.update([{ position: [0, 0, 0], frustum: o }]),
      checker.getNonNullableType(member(element(streamSource), 'frustum'))],
  ];
  const problems = [];
  for (const [where, call, type] of cases) problems.push(...compareOptions(where, await knownOptions(call), type));
  for (const x of Object.values(s)) x.dispose();
  assert.deepEqual(problems, []);
});

test('the comparison catches a difference (the test tests itself)', () => {
  // A runtime object with a member too many, one too few, a wrong arity and a writable-declared getter.
  const tree = new q.QuadTree({ world: [0, 0, 1, 1] });
  const quadTree = constructed(member(declaredType('Quadrant'), 'QuadTree')).getReturnType();
  const fake = Object.create(Object.getPrototypeOf(tree), {
    extra: { value: () => 0, enumerable: true },
    insert: { value: (a) => a, enumerable: true },
    stats: { value: undefined, enumerable: true },
  });
  const problems = compare('fake', fake, quadTree).join('\n');
  assert.match(compare('bare', { insert() {} }, quadTree).join('\n'), /bare\.query is declared, the runtime lacks it/);
  assert.match(problems, /fake\.extra is public at runtime/);
  assert.match(problems, /fake\.insert: the runtime function takes 1 parameters/);
  assert.match(problems, /fake\.stats is declared a method, the runtime has a property/);
  tree.dispose();
});
