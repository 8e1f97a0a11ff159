"""JavaScript and TypeScript as npm ships them: ES modules (`.mjs`), CommonJS modules
(`.cjs`), TypeScript's CommonJS form (`.cts`) and React components (`.jsx`, `.tsx`) are
included by default and read as code (`.mts` when included: by default it is a
camcorder's video). commander 11.1.0's folder showed `esm.mjs` and
`esm.d.mts` as "file types not indexed", and an ESM-only package ships nothing else.
A typings file is headed by its own declarations (`export interface …`, `type … =`),
not only by its classes and functions."""

from __future__ import annotations

import pytest

from ragd.core.config import CODE_PATTERNS, DOCUMENT_PATTERNS
from ragd.ingest.chunking import chunk_document
from ragd.ingest.filters import PathFilter
from ragd.ingest.formats import module_name
from ragd.ingest.loaders import parse

MODULE = b"""import { Command } from './lib/command.js';

export const program = new Command();

export function createCommand(name) {
  return new Command(name);
}

export default class Help {
  formatHelp(cmd) { return ''; }
}
"""

TYPINGS = b"""// Type definitions for a command-line library
export type OptionValueSource = 'default' | 'config' | 'env' | 'cli';

export interface OptionValues {
  [key: string]: any;
}

export declare class Option {
  flags: string;
  hideHelp(hide?: boolean): this;
}

declare namespace internal {
  const version: string;
}

export enum Colour {
  Red,
}
"""


@pytest.mark.parametrize(
    "name",
    ["esm.mjs", "index.cjs", "Button.jsx", "index.d.cts", "App.tsx", "Main.kt"],
)
def test_module_suffixes_are_included_and_read_as_code(name: str) -> None:
    assert PathFilter(DOCUMENT_PATTERNS + CODE_PATTERNS).includes(f"node_modules/x/{name}")
    assert module_name(name) == "code"


def test_a_camcorders_clips_are_not_taken_for_typescript() -> None:
    """AVCHD video is `PRIVATE/AVCHD/BDMV/STREAM/00000.MTS`: included as TypeScript, every
    clip (tens of MB) was listed as too large (review39). An `.mts` module included by the
    user is still read as TypeScript."""
    assert not PathFilter(DOCUMENT_PATTERNS + CODE_PATTERNS).includes("STREAM/00000.MTS")
    assert module_name("esm.d.mts") == "code"


def test_an_es_module_is_headed_by_its_definitions() -> None:
    headings = [chunk.heading_path for chunk in chunk_document(parse("esm.mjs", MODULE))]
    assert "function createCommand" in " ".join(headings)
    assert "class Help" in " ".join(headings)


def test_typings_are_headed_by_their_declarations() -> None:
    for name in ("index.d.ts", "esm.d.mts"):
        chunks = chunk_document(parse(name, TYPINGS))
        headed = {chunk.heading_path: chunk.text for chunk in chunks}
        assert set(headed) >= {
            "export type OptionValueSource",
            "export interface OptionValues",
            "export declare class Option",
            "declare namespace internal",
            "export enum Colour",
        }
        assert "hideHelp(hide?: boolean): this;" in headed["export declare class Option"]
        assert "'env' | 'cli'" in headed["export type OptionValueSource"]


AMBIENT = b"""// Type definitions for node's fs and path
declare module "fs" {
  export function readFileSync(path: string): string;
}

declare module 'node:path' {
  export function join(...paths: string[]): string;
}

export const enum Direction {
  Up,
}

declare global {
  interface Window { ferry: string }
}

const usage = `
type the name of the ferry
`;
export type Options = { crossing: number };
"""


def test_ambient_modules_and_const_enums_head_their_sections() -> None:
    """An @types package's file is `declare module "fs" { … }` blocks; each is the API of
    one module, not the tail of what came before. A line of a template literal that starts
    with the word "type" is not a type alias."""
    parts = [c.heading_path for c in chunk_document(parse("index.d.ts", AMBIENT))]
    assert {
        'declare module "fs"',
        "declare module 'node:path'",
        "export const enum Direction",
        "declare global",
        "export type Options",
    } <= set(parts), parts
    assert not any(part.startswith("type the") for part in parts), parts


# A bundle as Babel and TypeScript compile a class for old browsers (mobx 6.13.5's
# `dist/mobx.esm.js`): `var Name = /*#__PURE__*/function (_Base) { … }(Base);`.
COMPILED = b"""function allowStateChangesEnd(prev) {
  globalState.allowStateChanges = prev;
}
var ObservableValue = /*#__PURE__*/function (_Atom) {
  function ObservableValue(value) {
    this.value_ = value;
  }
  return ObservableValue;
}(Atom);
var isObservableValue = /*#__PURE__*/createInstanceofPredicate("ObservableValue", ObservableValue);
var MobXGlobals = function MobXGlobals() {
  this.version = 6;
};
let reactionScheduler = function reactionScheduler(f) {
  return f();
};
var total = (1 + 2) * 3;
"""


def test_a_compiled_class_is_a_definition_not_the_function_above_it() -> None:
    """Each class of mobx's four development bundles had been cited as the function above
    it: `ObservableValue`, `ComputedValue` and `MobXGlobals` as `function
    allowStateChangesEnd` or `function changeDependenciesStateTo0` (newuser60)."""
    chunks = chunk_document(parse("dist/mobx.esm.js", COMPILED))
    paths = [c.heading_path for c in chunks]
    assert paths == [
        "function allowStateChangesEnd",
        "var ObservableValue",
        "var MobXGlobals",
        "let reactionScheduler",
    ]
    assert "var isObservableValue" in chunks[1].text  # a call, not a function: no heading
    assert "var total" in chunks[3].text


# A UMD bundle as Rollup writes it (mobx 6.13.5's `dist/mobx.umd.development.js`): the
# module's code is the factory's body, indented one level.
UMD = b"""(function (global, factory) {
    typeof exports === 'object' && typeof module !== 'undefined' ? factory(exports) :
    (global = global || self, factory(global.mobx = {}));
}(this, (function (exports) { 'use strict';

    var niceErrors = {
      0: "Invalid value for configuration 'enforceActions'"
    };
    function die(error) {
      throw new Error(error);
    }

    // Called by Atom when its value changes
    function propagateChanged(observable) {
      function inner() {
        return observable;
      }
      return inner();
    }
    var Reaction = /*#__PURE__*/function () {
      function Reaction(name) {
        this.name_ = name;
      }
      return Reaction;
    }();

    exports.Reaction = Reaction;

})));
"""


def test_a_umd_bundle_s_definitions_are_read_inside_its_wrapper() -> None:
    """Every one of the 117 chunks of mobx's UMD bundle had been `(untitled)`: its code
    sits inside the wrapper, so no definition stood at the margin (newuser60)."""
    paths = [c.heading_path for c in chunk_document(parse("dist/mobx.umd.js", UMD))]
    assert paths == ["(untitled)", "function die", "function propagateChanged", "var Reaction"]
    # a file with definitions at the margin keeps only those
    nested = b"function outer() {\n  function inner() {}\n  return inner;\n}\n"
    assert [c.heading_path for c in chunk_document(parse("a.js", nested))] == ["function outer"]
    # code that is not wrapped keeps no heading for what is nested in it
    test = b"describe('x', () => {\n  function helper() {}\n  it('works', helper);\n});\n"
    assert [c.heading_path for c in chunk_document(parse("a.test.js", test))] == ["(untitled)"]
