"""Go, Rust, Java, TypeScript, TSX and JavaScript extraction on small realistic files."""

from __future__ import annotations

from codememory.code import extract_file
from codememory.events import ImportRef, Symbol, SymbolsExtracted


def _by_qualname(event: SymbolsExtracted) -> dict[str, Symbol]:
    return {s.qualname: s for s in event.symbols}


def _refs(event: SymbolsExtracted) -> set[tuple[str, str, str]]:
    return {(r.kind, r.source, r.target) for r in event.refs}


GO = b"""// Package server serves requests.
package server

import (
	"fmt"
	h "net/http"
)

// Server answers requests.
// It is safe for concurrent use.
type Server struct {
	Base
	*other.Mixin
	client h.Client
}

type Reader interface {
	io.Closer
	Read(p []byte) (int, error)
}

type ID int

// Run starts the server.
func (s *Server) Run(port int, r Reader) error {
	fmt.Println(port)
	return s.stop()
}

func New() *Server { return &Server{} }
"""


def test_go() -> None:
    event = extract_file("acme/app", "internal/server/server.go", GO)
    assert (event.language, event.module) == ("go", "internal.server")
    syms = _by_qualname(event)
    file_node = syms["internal/server/server.go"]
    assert (file_node.kind, file_node.docstring) == ("module", "Package server serves requests.")
    server = syms["internal.server.Server"]
    assert (server.kind, server.start_line, server.end_line) == ("struct", 11, 15)
    assert server.signature == "type Server struct"
    assert server.docstring == "Server answers requests.\nIt is safe for concurrent use."
    assert server.parent == "internal/server/server.go"
    assert syms["internal.server.Reader"].kind == "interface"
    assert syms["internal.server.ID"].kind == "type"
    run = syms["internal.server.Server.Run"]
    assert (run.kind, run.parent, run.start_line, run.end_line) == (
        "method",
        "internal.server.Server",
        25,
        28,
    )
    assert run.signature == "func (s *Server) Run(port int, r Reader) error"
    assert run.docstring == "Run starts the server."
    assert run.excerpt.startswith("fmt.Println(port)")
    assert syms["internal.server.New"].kind == "function"
    assert event.imports == (
        ImportRef(module="fmt", line=5),
        ImportRef(module="net/http", alias="h", line=6),
    )
    refs = _refs(event)
    assert ("inherits", "internal.server.Server", "Base") in refs
    assert ("inherits", "internal.server.Server", "other.Mixin") in refs
    assert ("inherits", "internal.server.Reader", "io.Closer") in refs
    assert ("calls", "internal.server.Server.Run", "fmt.Println") in refs
    assert ("calls", "internal.server.Server.Run", "s.stop") in refs
    assert ("references", "internal.server.Server.Run", "Reader") in refs
    assert ("references", "internal.server.Server", "h.Client") in refs
    assert not any(target == "int" for _, _, target in refs)


RUST = b"""//! Geometry primitives.
use std::collections::{HashMap, HashSet as Set};
use crate::units::Meters;
use super::*;

/// A point in the plane.
#[derive(Debug, Clone)]
pub struct Point {
    x: i32,
    unit: Meters,
}

pub enum Shape { Circle, Square }

pub trait Area: Debug + Clone {
    /// The area.
    fn area(&self) -> f64;
}

impl Area for Point {
    fn area(&self) -> f64 {
        helper();
        self.x.abs();
        Vec::new()
    }
}

impl Point {
    pub fn new(x: i32) -> Self { Point { x, unit: Meters(0) } }
}

fn helper() -> Option<Point> { None }
"""


def test_rust() -> None:
    event = extract_file("acme/geo", "src/geo/mod.rs", RUST)
    assert (event.language, event.module) == ("rust", "geo")
    syms = _by_qualname(event)
    assert syms["geo"].docstring == "Geometry primitives."
    point = syms["geo.Point"]
    assert (point.kind, point.start_line, point.end_line, point.parent) == ("struct", 8, 11, "geo")
    assert point.docstring == "A point in the plane."  # the attribute between is skipped
    assert point.signature == "pub struct Point"
    assert syms["geo.Shape"].kind == "enum"
    assert syms["geo.Area"].kind == "trait"
    assert (syms["geo.Area.area"].kind, syms["geo.Area.area"].docstring) == ("method", "The area.")
    area = syms["geo.Point.area"]
    assert (area.kind, area.parent) == ("method", "geo.Point")
    assert syms["geo.Point.new"].signature == "pub fn new(x: i32) -> Self"
    assert syms["geo.helper"].kind == "function"
    assert event.imports == (
        ImportRef(module="std::collections", name="HashMap", line=2),
        ImportRef(module="std::collections", name="HashSet", alias="Set", line=2),
        ImportRef(module="crate::units", name="Meters", line=3),
        ImportRef(module="super", name="*", line=4),
    )
    refs = _refs(event)
    assert ("inherits", "geo.Point", "Area") in refs
    assert ("inherits", "geo.Area", "Debug") in refs
    assert ("calls", "geo.Point.area", "helper") in refs
    assert ("calls", "geo.Point.area", "Vec::new") in refs
    assert ("references", "geo.Point", "Meters") in refs
    assert ("references", "geo.helper", "Point") in refs


JAVA = b"""package com.acme.shop;

import java.util.List;
import static java.util.Map.entry;
import java.io.*;

/**
 * A shopping cart.
 * Holds items.
 */
@Deprecated
public class Cart extends Base<Item> implements Serializable, Comparable {
    private List<Item> items;

    public Cart() {}

    /** Add an item. */
    public void add(Item item) {
        validate(item);
        this.items.add(item);
        new Audit();
    }

    static class Line {}
}

interface Priced extends Comparable {}
enum Currency { EUR }
"""


def test_java() -> None:
    event = extract_file("acme/shop", "src/main/java/com/acme/shop/Cart.java", JAVA)
    assert (event.language, event.module) == ("java", "com.acme.shop")
    syms = _by_qualname(event)
    assert syms["src/main/java/com/acme/shop/Cart.java"].kind == "module"
    cart = syms["com.acme.shop.Cart"]
    assert (cart.kind, cart.start_line, cart.end_line) == ("class", 11, 25)
    assert cart.docstring == "A shopping cart.\nHolds items."
    assert cart.signature.endswith("public class Cart extends Base<Item> implements Serializable, Comparable")
    add = syms["com.acme.shop.Cart.add"]
    assert (add.kind, add.parent, add.docstring) == ("method", "com.acme.shop.Cart", "Add an item.")
    assert add.signature == "public void add(Item item)"
    assert syms["com.acme.shop.Cart.Cart"].kind == "method"
    assert syms["com.acme.shop.Cart.Line"].parent == "com.acme.shop.Cart"
    assert syms["com.acme.shop.Priced"].kind == "interface"
    assert syms["com.acme.shop.Currency"].kind == "enum"
    assert event.imports == (
        ImportRef(module="java.util", name="List", line=3),
        ImportRef(module="java.util.Map", name="entry", line=4),
        ImportRef(module="java.io", name="*", line=5),
    )
    refs = _refs(event)
    assert {("inherits", "com.acme.shop.Cart", t) for t in ("Base", "Serializable", "Comparable")} <= refs
    assert ("inherits", "com.acme.shop.Priced", "Comparable") in refs
    assert ("calls", "com.acme.shop.Cart.add", "validate") in refs
    assert ("calls", "com.acme.shop.Cart.add", "this.items.add") in refs
    assert ("calls", "com.acme.shop.Cart.add", "Audit") in refs
    assert ("references", "com.acme.shop.Cart.add", "Item") in refs


TS = b"""import React, { useState as useS } from "react";
import * as path from "path";
import "./styles.css";
export { helper } from "./util";

/**
 * A button.
 * @param props the props
 */
export class Button extends React.Component<Props> implements Clickable {
  /** Handle a click. */
  handleClick(e: MouseEvent): void {
    this.setState({});
    helper(path.join("a"));
  }

  onHover = (e: MouseEvent) => { this.handleClick(e); };
}

export interface Props extends BaseProps { label: string; }
export enum Color { Red }
type Handler = (e: Event) => void;

/** Make a button. */
export const make = async (label: string): Promise<Button> => {
  return new Button({ label });
};
"""


def test_typescript_and_tsx() -> None:
    for path, language in (("src/ui/Button.ts", "typescript"), ("src/ui/Button.tsx", "tsx")):
        event = extract_file("acme/web", path, TS)
        assert (event.language, event.module) == (language, "src.ui.Button")
        syms = _by_qualname(event)
        button = syms["src.ui.Button.Button"]
        assert (button.kind, button.start_line, button.end_line) == ("class", 10, 18)
        hover = syms["src.ui.Button.Button.onHover"]
        assert (hover.kind, hover.signature) == ("method", "onHover = (e: MouseEvent) =>")
        assert ("calls", "src.ui.Button.Button.onHover", "this.handleClick") in _refs(event)
        assert button.docstring == "A button.\n@param props the props"
        assert button.signature.startswith("export class Button extends React.Component<Props>")
        click = syms["src.ui.Button.Button.handleClick"]
        assert (click.kind, click.parent, click.docstring) == (
            "method",
            "src.ui.Button.Button",
            "Handle a click.",
        )
        assert syms["src.ui.Button.Props"].kind == "interface"
        assert syms["src.ui.Button.Color"].kind == "enum"
        assert syms["src.ui.Button.Handler"].kind == "type"
        make = syms["src.ui.Button.make"]
        assert (make.kind, make.docstring) == ("function", "Make a button.")
        assert make.signature == "export const make = async (label: string): Promise<Button> =>"
        assert event.imports == (
            ImportRef(module="react", name="default", alias="React", line=1),
            ImportRef(module="react", name="useState", alias="useS", line=1),
            ImportRef(module="path", name="*", alias="path", line=2),
            ImportRef(module="./styles.css", line=3),
            ImportRef(module="./util", name="helper", line=4),
        )
        refs = _refs(event)
        assert ("inherits", "src.ui.Button.Button", "React.Component") in refs
        assert ("inherits", "src.ui.Button.Button", "Clickable") in refs
        assert ("inherits", "src.ui.Button.Props", "BaseProps") in refs
        assert ("calls", "src.ui.Button.Button.handleClick", "this.setState") in refs
        assert ("calls", "src.ui.Button.Button.handleClick", "path.join") in refs
        assert ("calls", "src.ui.Button.make", "Button") in refs
        assert ("references", "src.ui.Button.Button.handleClick", "MouseEvent") in refs


def test_tsx_parses_jsx() -> None:
    src = b"""import { Button } from "./Button";
import * as UI from "ui";
export function App() {
  return <div onClick={() => go()}><Button label="x" /><UI.Card>hi</UI.Card><Local /></div>;
}
"""
    event = extract_file("r", "web/App.tsx", src)
    assert [s.qualname for s in event.symbols] == ["web.App", "web.App.App"]
    assert _refs(event) == {
        ("calls", "web.App.App", "go"),
        ("references", "web.App.App", "Button"),
        ("references", "web.App.App", "UI.Card"),
    }


JS = b"""const fs = require("fs");
import config from "./config.js";

/** The app. */
class App extends Base {
  start() { fs.readFileSync("x"); }
  stop = () => { this.start(); };
}

function run() { new App(); }
const stop = function () { run(); };
"""


def test_javascript_including_require() -> None:
    for path in ("lib/app.js", "lib/app.mjs", "lib/app.cjs", "lib/app.jsx"):
        event = extract_file("r", path, JS)
        assert event.language == "javascript"
        syms = _by_qualname(event)
        assert list(syms) == [
            "lib.app",
            "lib.app.App",
            "lib.app.App.start",
            "lib.app.App.stop",
            "lib.app.run",
            "lib.app.stop",
        ]
        assert syms["lib.app.App.stop"].kind == "method"
        assert syms["lib.app.App"].docstring == "The app."
        assert syms["lib.app.App.start"].kind == "method"
        assert event.imports == (
            ImportRef(module="fs", alias="fs", line=1),
            ImportRef(module="./config.js", name="default", alias="config", line=2),
        )
        refs = _refs(event)
        assert ("inherits", "lib.app.App", "Base") in refs
        assert ("calls", "lib.app.App.start", "fs.readFileSync") in refs
        assert ("calls", "lib.app.run", "App") in refs
        assert ("calls", "lib.app.stop", "run") in refs


def test_java_overloads_are_separate_symbols() -> None:
    src = b"class G {\n  void to(Object o) {}\n  void to(Object o, Type t) {\n    write(o);\n  }\n}\n"
    event = extract_file("r", "G.java", src)
    overloads = [(s.qualname, s.name, s.start_line, s.end_line) for s in event.symbols if s.name == "to"]
    assert overloads == [("G.G.to", "to", 2, 2), ("G.G.to#2", "to", 3, 5)]  # no package: the file stem
    assert ("calls", "G.G.to#2", "write") in _refs(event)


def test_go_init_functions_belong_to_their_file() -> None:
    a = extract_file("r", "svc/a.go", b"package svc\n\nfunc init() { setup() }\n\nfunc init() {}\n")
    b = extract_file("r", "svc/b.go", b"package svc\n\nfunc init() {}\n\nfunc Run() {}\n")
    assert [(s.qualname, s.name, s.parent) for s in a.symbols[1:]] == [
        ("svc/a.go.init", "init", "svc/a.go"),
        ("svc/a.go.init#2", "init", "svc/a.go"),
    ]
    assert ("calls", "svc/a.go.init", "setup") in _refs(a)
    assert [s.qualname for s in b.symbols[1:]] == ["svc/b.go.init", "svc.Run"]  # one package, two inits


REDEFINED = {  # every way a file can define a name twice, per language
    "svc/x.go": b"package svc\ntype T struct{}\nfunc (t T) M() {}\nfunc (t *T) M() {}\n"
    b"func F() {}\nfunc F() {}\n",
    "src/lib.rs": b"struct A;\nimpl A { fn new() {} }\nimpl A { fn new() {} }\n"
    b"mod m { fn f() {} }\nmod m { fn f() {} }\n",
    "app/S.java": b"package app;\nclass S { void a(int x) {} void a(String s) {} S() {} S(int x) {}\n"
    b"class I {} class I {} }\n",
    "web/x.ts": b"class C { get x() { return 1 } set x(v) {} m() {} m() {} }\n"
    b"interface I {}\ninterface I {}\n",
    "web/y.js": b"function f() {}\nfunction f() {}\nclass C { m() {} m() {} }\nclass C {}\n",
    "pkg/mod.py": b"if a:\n    def f(): ...\nelse:\n    def f(): ...\ndef f(): ...\n"
    b"def mod(): ...\nclass mod: ...\n",
}


def test_no_two_symbols_of_a_file_share_a_qualname() -> None:
    for path, source in REDEFINED.items():
        qualnames = [s.qualname for s in extract_file("r", path, source).symbols]
        assert len(qualnames) == len(set(qualnames)) > 3, (path, qualnames)
