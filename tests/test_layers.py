"""The house's layers (issue 28 "host_sim without circles"): no module of
host_sim/, tools/ or firmware/ imports, directly or through others, a module
that imports it back, and no module takes another's private name
(`from x import _name`).  Read from the sources (every import statement,
also those inside functions, which a circle hides in), so the check does not
depend on what a test run happens to import.
"""
import ast
import glob
import os

from conftest import ROOT

# folder -> how its modules are imported: host_sim's as host_sim.x (the
# package), tools' and firmware's flat (tools/ and firmware/ on sys.path)
TREES = (("host_sim", "host_sim."), ("tools", ""), ("firmware", ""))


def modules(root=ROOT):
    """{module name: path} of every tree, host_sim/__init__.py as host_sim."""
    out = {}
    for folder, prefix in TREES:
        for path in sorted(glob.glob(os.path.join(root, folder, "*.py"))):
            name = os.path.basename(path)[:-3]
            out["host_sim" if (prefix and name == "__init__") else prefix + name] = path
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


def graph(found):
    edges = {}
    for a, b, _name, _line in found:
        if a != b:
            edges.setdefault(a, set()).add(b)
    return edges


def test_no_import_circle_in_host_sim_tools_or_firmware():
    """Issue 28: hall.py, hall_recorder.py, tournament.py, desk.py and
    hall_sim.py imported each other in a circle (the recorder took the
    hall's passwords and the tournament's line reader, the tournament the
    recorder's readers), and tools/deploy.py and tools/fwimage.py each
    other.  Each circle is named with its modules."""
    found = imports(modules())
    assert circles(graph(found)) == []


def test_no_private_name_taken_from_another_module():
    """Issue 28: tournament.py borrowed hall_recorder._num, the recorder
    tournament._lines.  A name another module needs is public in the module
    both import (host_sim/hall_files.py)."""
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
    found = imports(modules(str(tmp_path)))
    assert sorted(circles(graph(found))) == [["c", "d"], ["host_sim.a", "host_sim.b"]]
    assert [(a, b, n) for a, b, n, _ in found if n] == [("host_sim.b", "host_sim.a", "_x")]
