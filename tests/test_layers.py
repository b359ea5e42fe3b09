"""The house's layers (issue 28 "host_sim without circles", issue 35 "the
hall is a package of its own"): no module of host_sim/, hall/, bench/,
tools/ or firmware/ imports, directly or through others, a module that
imports it back; no module takes another's private name (`from x import
_name`); the simulator (host_sim/) never imports the hall, and no product
module (host_sim/, hall/) imports a test driver (bench/, tests/) or a
test-only library.  Read from the sources (every import statement, also
those inside functions, which a circle hides in), so the check does not
depend on what a test run happens to import.
"""
import ast
import glob
import os

from conftest import ROOT

# folder -> how its modules are imported: host_sim, hall and bench as
# packages (hall/rehearsal/ as hall.rehearsal, ...), tools' and firmware's
# flat (tools/ and firmware/ on the import path)
PACKAGES = ("host_sim", "hall", "bench")
FLAT = ("tools", "firmware")
PRODUCT = ("host_sim", "hall")
# what only the tests and the bench may import (requirements-test.txt)
TEST_ONLY = ("bench", "pytest", "hypothesis", "selenium", "hallkit", "conftest")


def modules(root=ROOT):
    """{module name: path} of every tree, a package's __init__.py under the
    package's name, its sub-packages' modules dotted (hall.rehearsal.clocks)."""
    out = {}
    for folder in PACKAGES:
        for path in sorted(glob.glob(os.path.join(root, folder, "**", "*.py"), recursive=True)):
            rel = os.path.relpath(path, root)[:-3].split(os.sep)
            if "fakehw" in rel:           # the hardware fakes: flat (import machine)
                out[rel[-1]] = path
                continue
            if rel[-1] == "__init__":
                rel = rel[:-1]
            out[".".join(rel)] = path
    for folder in FLAT:
        for path in sorted(glob.glob(os.path.join(root, folder, "*.py"))):
            out[os.path.basename(path)[:-3]] = path
    return out


def imports(mods):
    """[(importer, imported, name or None, line)] for every import of one of
    mods (name: the one taken by `from imported import name`)."""
    found = []
    for me, path in mods.items():
        with open(path, encoding="utf-8") as f:
            tree = ast.parse(f.read(), path)
        for node in ast.walk(tree):
            if isinstance(node, ast.Import):
                for a in node.names:
                    if a.name in mods:
                        found.append((me, a.name, None, node.lineno))
            elif isinstance(node, ast.ImportFrom) and not node.level and node.module:
                for a in node.names:
                    sub = node.module + "." + a.name
                    if sub in mods:            # from host_sim import hall
                        found.append((me, sub, None, node.lineno))
                    elif node.module in mods:
                        found.append((me, node.module, a.name, node.lineno))
    return found


def circles(edges):
    """The strongly connected parts of more than one module (Tarjan), and
    the modules that import themselves: each is an import circle."""
    index, low, stack, on, out = {}, {}, [], set(), []

    def visit(v):
        index[v] = low[v] = len(index)
        stack.append(v)
        on.add(v)
        for w in sorted(edges.get(v, ())):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            part = []
            while True:
                w = stack.pop()
                on.discard(w)
                part.append(w)
                if w == v:
                    break
            if len(part) > 1:
                out.append(sorted(part))
    for v in sorted(edges):
        if v not in index:
            visit(v)
    return out


def graph(found, mods=()):
    """{importer: {imported}}; importing hall.rehearsal.clocks runs hall's
    and hall.rehearsal's __init__ first: an edge to each (of mods)."""
    edges = {}
    for a, b, _name, _line in found:
        parts = b.split(".")
        for n in range(1, len(parts)):
            up = ".".join(parts[:n])
            if up in mods and up != a and not a.startswith(up + "."):
                edges.setdefault(a, set()).add(up)
        if a != b:
            edges.setdefault(a, set()).add(b)
    return edges


def test_no_import_circle_in_host_sim_hall_bench_tools_or_firmware():
    """Issue 28: hall.py, hall_recorder.py, tournament.py, desk.py and
    hall_sim.py imported each other in a circle (the recorder took the
    hall's passwords and the tournament's line reader, the tournament the
    recorder's readers), and tools/deploy.py and tools/fwimage.py each
    other.  Each circle is named with its modules."""
    mods = modules()
    assert {"hall", "hall.cli", "hall.recorder", "hall.rehearsal.clocks",
            "bench.hall_attacks", "host_sim", "host_sim.replay"} <= set(mods)
    assert circles(graph(imports(mods), mods)) == []


def _all_imports(path):
    """[(module imported, line)] of every import statement in a file (of
    this repository's modules or not; `from a import b` as a and a.b)."""
    with open(path, encoding="utf-8") as f:
        tree = ast.parse(f.read(), path)
    out = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            out += [(a.name, node.lineno) for a in node.names]
        elif isinstance(node, ast.ImportFrom) and not node.level and node.module:
            out.append((node.module, node.lineno))
            out += [(node.module + "." + a.name, node.lineno) for a in node.names]
    return out


def test_the_simulator_never_imports_the_hall_issue_35():
    """Issue 35: the hall builds on the simulator's package (the firmware's
    modules, the replay that reads a game log), never the other way round:
    the simulator installs and runs without the hall."""
    bad = ["%s line %d: import %s" % (me, line, name)
           for me, path in modules().items() if me.split(".")[0] == "host_sim"
           or path.startswith(os.path.join(ROOT, "host_sim") + os.sep)
           for name, line in _all_imports(path) if name.split(".")[0] == "hall"]
    assert bad == []


def test_no_test_driver_in_product_code_issue_35():
    """Issue 35 habits: no test drivers in product modules.  The hall's and
    the simulator's modules import nothing of bench/ (the attacks, the
    sniffer, the browser), of tests/, nor a test-only library (selenium,
    pytest, hypothesis: requirements-test.txt)."""
    bad = ["%s line %d: import %s" % (os.path.relpath(path, ROOT), line, name)
           for me, path in modules().items()
           if os.path.relpath(path, ROOT).split(os.sep)[0] in PRODUCT
           for name, line in _all_imports(path) if name.split(".")[0] in TEST_ONLY]
    assert bad == []


def test_no_private_name_taken_from_another_module():
    """Issue 28: tournament.py borrowed hall_recorder._num, the recorder
    tournament._lines.  A name another module needs is public in the module
    both import (hall/files.py)."""
    taken = ["%s line %d: from %s import %s" % (a, line, b, name)
             for a, b, name, line in imports(modules())
             if name and name.startswith("_") and not name.startswith("__")]
    assert taken == []


def test_the_check_sees_a_circle_through_a_function_level_import(tmp_path):
    """The walker itself: a circle closed by an import inside a function (as
    the recorder's was) and a borrowed private name are found."""
    for folder in ("host_sim", "tools", "firmware"):
        (tmp_path / folder).mkdir()
    (tmp_path / "host_sim" / "__init__.py").write_text("")
    (tmp_path / "host_sim" / "a.py").write_text("from host_sim import b\n")
    (tmp_path / "host_sim" / "b.py").write_text("def f():\n    from host_sim.a import _x\n")
    (tmp_path / "tools" / "c.py").write_text("import d\n")
    (tmp_path / "tools" / "d.py").write_text("def g():\n    import c\n")
    # a circle through a package's __init__: importing hall.e runs hall/__init__.py
    (tmp_path / "hall").mkdir()
    (tmp_path / "hall" / "__init__.py").write_text("from host_sim import f\n")
    (tmp_path / "hall" / "e.py").write_text("x = 1\n")
    (tmp_path / "host_sim" / "f.py").write_text("from hall import e\n")
    mods = modules(str(tmp_path))
    found = imports(mods)
    assert sorted(circles(graph(found, mods))) == [["c", "d"], ["hall", "host_sim.f"],
                                                   ["host_sim.a", "host_sim.b"]]
    assert [(a, b, n) for a, b, n, _ in found if n] == [("host_sim.b", "host_sim.a", "_x")]
