"""The module model: import aliases, traced functions and their parameters, value kinds."""

from __future__ import annotations

import ast
import textwrap

import pytest

from jax_lsp.analysis.document import Document
from jax_lsp.analysis.flow import FlowInterpreter, ScopeContext, plain_bindings
from jax_lsp.analysis.imports import Resolver
from jax_lsp.analysis.kinds import Kind
from jax_lsp.analysis.model import ModuleModel, _evaluated_text, _loaded_words
from jax_lsp.analysis.text import identifiers
from jax_lsp.analysis.updates import stepped_and_read


def model_of(source: str) -> ModuleModel:
    return ModuleModel(Document(textwrap.dedent(source)))


def trace_of(model: ModuleModel, path: str):
    return model.trace.get(model.functions[path].node)


@pytest.mark.parametrize(
    "header",
    [
        "import jax\n@jax.jit",
        "from jax import jit\n@jit",
        "from jax import jit as J\n@J",
        "import jax as j\n@j.jit",
        "import jax, functools\n@functools.partial(jax.jit)",
        "import jax\nfrom functools import partial\n@partial(jax.jit, donate_argnums=0)",
        "import jax\n@jax.jit(inline=True)",
        "import jax\n@jax.vmap",
        "import equinox as eqx\n@eqx.filter_jit",
        "import jax\n@jax.checkpoint",
        "import jax\n@jax.remat",
    ],
)
def test_decorator_spellings_trace_the_function(header):
    model = model_of(f"{header}\ndef f(x):\n    return x\n")
    info = trace_of(model, "f")
    assert info is not None and info.abstract


def test_static_argnums_and_argnames_are_not_traced():
    model = model_of(
        """
        import jax
        from functools import partial

        @partial(jax.jit, static_argnums=(1,), static_argnames="mode")
        def f(x, n, *, mode="a", scale=1.0):
            return x
        """
    )
    info = trace_of(model, "f")
    assert info.traced_params == {"x", "scale"}
    assert info.static_params == {"n", "mode"}


def test_defaults_passed_to_the_jitted_function_are_known():
    model = model_of(
        """
        import jax
        from functools import partial

        @jax.jit
        def decorated(x, training=True, rate=0.5, n=3):
            return x

        def plain(x, training=True, scale=2.0):
            return x

        @partial(jax.jit, static_argnames="flag")
        def static(x, flag=False):
            return x

        fast = jax.jit(plain)

        def main(x):
            decorated(x, False, n=4)  # `rate` left alone
            plain(x, scale=3.0)  # the plain function: nothing is traced
            static(x, flag=True)
            return fast(x, training=False), jax.jit(plain)(x, True)
        """
    )
    passed = {
        path: model.passed_defaults(model.functions[path].node)
        for path in ("decorated", "plain", "static", "main")
    }
    assert passed == {
        "decorated": {"training", "n"},
        "plain": {"training"},  # by `fast(...)` and `jax.jit(plain)(...)`, not the plain call
        "static": set(),  # static: not traced
        "main": set(),
    }


def test_defaults_passed_to_a_name_rebound_to_its_jit_are_known():
    # `f = jax.jit(f)` rebinds the name: calls after it (and in functions) run the jitted one.
    source = """
        import jax

        def forward(x, training=True, rate=0.5):
            return x

        eager = forward(1.0, rate=0.1)  # before the rebinding: the plain function
        forward = jax.jit(forward)

        def main(x):
            return forward(x, False)
        """
    model = model_of(source)
    assert model.passed_defaults(model.functions["forward"].node) == {"training"}
    model = model_of(source.replace("forward(x, False)", "forward(x)"))
    assert model.passed_defaults(model.functions["forward"].node) == set()


def test_functions_given_to_a_wrapper_that_transforms_them_are_traced():
    model = model_of(
        """
        import functools
        import jax

        def my_jit(f):
            return jax.jit(f)

        def jit_with(**options):
            def decorate(f):
                return jax.jit(f, **options)
            return decorate

        def compiled(fn):  # a jitted closure called by the wrapper it returns
            jitted = jax.jit(fn, static_argnames=("mode",))
            @functools.wraps(fn)
            def call(*args, **kwargs):
                return jitted(*args, **kwargs)
            return call

        @my_jit
        def decorated(x):
            return x

        @jit_with(static_argnames="n")
        def factory(x, n):
            return x

        def called(x, n):
            return x

        fast = jit_with(static_argnums=1)(called)

        @compiled
        def inner(x, mode="fast"):
            return x

        def as_call(x, flag):
            return x

        fast2 = my_jit(as_call)
        """
    )
    assert trace_of(model, "decorated").traced_params == {"x"}
    assert (trace_of(model, "factory").traced_params, trace_of(model, "factory").static_params) == (
        {"x"},
        {"n"},
    )
    assert trace_of(model, "called").static_params == {"n"}
    assert (trace_of(model, "inner").traced_params, trace_of(model, "inner").static_params) == (
        {"x"},
        {"mode"},
    )
    assert trace_of(model, "as_call").traced_params == {"x", "flag"}
    assert trace_of(model, "my_jit") is None


def test_options_a_wrapper_takes_as_parameters_are_read_at_its_sites():
    model = model_of(
        """
        import jax

        STATIC = ("n",)

        def jit_static(*names):
            return lambda f: jax.jit(f, static_argnames=names)

        def jit_named(names=()):
            def decorate(f):
                return jax.jit(f, static_argnames=names)
            return decorate

        def my_jit(f, *names):
            return jax.jit(f, static_argnames=names)

        @jit_static("n")
        def by_lambda(x, n):
            return x

        @jit_named(names=("n",))
        def by_keyword(x, n):
            return x

        @jit_named()
        def by_default(x, n):
            return x

        def called(x, n):
            return x

        fast = my_jit(called, "n")

        @jit_static(*STATIC)
        def unpacked(x, n):
            return x

        @jit_named(STATIC)
        def by_constant(x, n):
            return x
        """
    )
    for name in ("by_lambda", "by_keyword", "called"):
        info = trace_of(model, name)
        assert (info.traced_params, info.static_params) == ({"x"}, {"n"}), name
    assert trace_of(model, "by_default").traced_params == {"x", "n"}
    # Static names the site does not show: traced, no parameter claimed traced.
    for name in ("unpacked", "by_constant"):
        assert trace_of(model, name).traced_params == frozenset(), name


def test_wrappers_that_may_not_transform_trace_nothing():
    source = textwrap.dedent(
        """
        import jax

        OPTIONS = {"static_argnums": 1}

        def maybe_jit(f, enabled=True):
            return jax.jit(f) if enabled else f

        def unless_debug(f):
            if DEBUG:
                return f
            return jax.jit(f)

        def with_module_options(f):
            return jax.jit(f, **OPTIONS)  # options it does not take from its caller

        def make_loss(model_fn):
            def loss(params, x):
                return model_fn(params, x)
            return loss

        def method_jit(meth, **options):
            def fun(*args, **kwargs):
                return meth.__func__(meth.__self__, *args, **kwargs)
            return jax.jit(fun, **options)

        class Model:
            def run(self, x, n):
                return x

        def apply(params, x):
            return x

        @maybe_jit
        def a(x):
            return x

        @unless_debug
        def b(x):
            return x

        @with_module_options
        def c(x, n):
            return x

        loss = jax.jit(make_loss(apply))  # `loss` is made here, jitted elsewhere
        model = Model()
        run = method_jit(model.run, static_argnames="n")  # options for `fun`

        def flops(f, *args):
            return jax.jit(f).lower(*args)

        def search(x):
            for width in (1, 2):
                search = build(width)  # a local value named like the function
                flops(search, x)
            return x
        """
    )
    model = model_of(source)
    for path in ("a", "b", "c", "apply", "Model.run", "search"):
        assert trace_of(model, path) is None, path
    # Given the method alone, the jitted `fun` passes it tracers (its `self` is bound).
    model = model_of(source.replace(', static_argnames="n")', ")"))
    assert trace_of(model, "Model.run").traced_params == {"x", "n"}


def test_rebinding_and_wrapping_calls_trace_the_function():
    model = model_of(
        """
        import jax

        def f(x, n):
            return x

        f = jax.jit(f, static_argnums=1)

        def g(x):
            return x

        result = jax.jit(g)(1.0)
        """
    )
    assert trace_of(model, "f").static_params == {"n"}
    assert trace_of(model, "g").traced_params == {"x"}


def test_lax_bodies_and_nested_functions_are_traced():
    model = model_of(
        """
        import jax
        from jax import lax

        def outer(xs):
            def body(i, carry):
                return carry + i
            def cond_true(x):
                return x
            total = lax.fori_loop(0, 10, body, 0.0)
            lax.cond(total > 0, cond_true, lambda x: -x, total)
            return total
        """
    )
    assert trace_of(model, "outer.body").traced_params == {"i", "carry"}
    assert trace_of(model, "outer.cond_true").via == "lax.cond"
    assert trace_of(model, "outer") is None


def test_grad_traces_only_argnums_and_is_not_abstract():
    model = model_of(
        """
        import jax

        def loss(params, batch, n):
            return params

        grads = jax.grad(loss, argnums=(0, 1))
        """
    )
    info = trace_of(model, "loss")
    assert info.traced_params == {"params", "batch"}
    assert not info.abstract


def test_vmap_in_axes_none_is_not_traced():
    model = model_of(
        """
        import jax

        def f(x, n):
            return x * n

        g = jax.vmap(f, in_axes=(0, None))
        """
    )
    assert trace_of(model, "f").traced_params == {"x"}


def test_callees_of_traced_code_trace_where_a_traced_value_is_passed():
    model = model_of(
        """
        import jax

        def helper(a, b, flag):
            return a

        def deeper(z):
            return z

        @jax.jit
        def f(x):
            y = x * 2
            deeper(helper(y, x.shape[0], True))
            return helper(y, 3, flag=x > 0)
        """
    )
    helper = trace_of(model, "helper")
    assert helper.traced_params == {"a", "flag"}
    assert not helper.direct and helper.abstract
    assert trace_of(model, "deeper").traced_params == frozenset()


def test_methods_called_through_self_are_resolved():
    model = model_of(
        """
        import jax

        class Model:
            @jax.jit
            def __call__(self, x):
                return self.step(x)

            def step(self, h):
                return h
        """
    )
    assert trace_of(model, "Model.step").traced_params == {"h"}


def test_an_item_read_of_an_instance_runs_its_getitem_in_the_trace():
    source = """
        import jax
        import jax.numpy as jnp

        class Table:
            def __init__(self, rows):
                self.rows = rows

            def __getitem__(self, index):
                return pick(self.rows, index)

        def pick(rows, index):
            return rows[index]

        @jax.jit
        def f(x):
            table = Table(x)
            counts = {"n": 1}
            return table[jnp.argmax(x)] + table[0] + counts["n"]
        """
    model = model_of(source)
    # `table[i]` is `table.__getitem__(i)`: the method runs in the trace, given what the
    # reads pass (a traced index once, a Python int once), and so do its callees. `self` is
    # the object built from the traced `x`: its `rows` hold a tracer.
    assert trace_of(model, "Table.__getitem__").traced_params == {"self", "index"}
    assert trace_of(model, "pick").traced_params == {"rows", "index"}
    # a module whose classes define no `__getitem__` reads items as before
    plain = model_of(source.replace("__getitem__", "lookup"))
    assert trace_of(plain, "Table.lookup") is None
    assert trace_of(plain, "pick") is None


def kinds_by_name(model: ModuleModel, path: str) -> dict[str, Kind]:
    node = model.functions[path].node
    kinds = model.scope_kinds(node).kinds
    return {n.id: kinds[n] for n in ast.walk(node) if isinstance(n, ast.Name) and n in kinds}


def test_kinds_follow_assignments_and_static_shapes():
    model = model_of(
        """
        import jax
        import jax.numpy as jnp
        import numpy as np

        @jax.jit
        def f(x, mask=None):
            n = x.shape[0]
            m = len(x)
            y = jnp.sin(x) + 1
            z = np.zeros(3)
            if mask is not None:
                w = mask
            total = y.sum()
            return n, m, y, z, total
        """
    )
    kinds = kinds_by_name(model, "f")
    assert kinds["n"] is Kind.STATIC
    assert kinds["m"] is Kind.STATIC
    assert kinds["y"] is Kind.TRACED
    assert kinds["z"] is Kind.NUMPY
    assert kinds["total"] is Kind.TRACED


def test_module_level_arrays_and_numpy_are_told_apart():
    model = model_of(
        """
        import jax.numpy as jnp
        import numpy as np

        a = jnp.zeros(3)
        b = np.zeros(3)
        c = jnp.zeros(3)
        c = np.zeros(3)
        """
    )
    assert model.global_kinds["a"] is Kind.ARRAY
    assert model.global_kinds["b"] is Kind.NUMPY
    assert model.global_kinds["c"] is Kind.UNKNOWN
    assert "c" in model.mutable_globals


def test_import_jax_numpy_as_np_is_jax():
    model = model_of("import jax.numpy as np\nx = np.zeros(3)\n")
    assert model.global_kinds["x"] is Kind.ARRAY


def test_annotations_mark_arrays_including_jaxtyping():
    model = model_of(
        """
        import jax
        from jaxtyping import Array, Float

        def f(a: jax.Array, b: Float[Array, "n"], c: "jax.Array", d: int):
            return a, b, c, d
        """
    )
    kinds = kinds_by_name(model, "f")
    assert [kinds[n] for n in "abcd"] == [Kind.ARRAY] * 3 + [Kind.UNKNOWN]


def test_arguments_bound_by_partial_are_not_traced():
    model = model_of(
        """
        import functools
        import jax

        def step(n, x, flag):
            return x

        inline = jax.jit(functools.partial(step, 3))

        def make():
            def body(x, y, flag):
                return x
            body = functools.partial(body, flag=True)
            body = jax.pmap(body)
            return jax.jit(body)
        """
    )
    assert trace_of(model, "step").traced_params == {"x", "flag"}
    assert trace_of(model, "step").static_params == {"n"}
    assert trace_of(model, "make.body").traced_params == {"x", "y"}


def test_a_name_rebound_to_something_else_no_longer_names_the_function():
    model = model_of(
        """
        import jax

        def outer(make_something_else):
            def f(x):
                return x

            f = make_something_else(f)
            return jax.jit(f)
        """
    )
    assert trace_of(model, "outer.f") is None


def test_a_definition_reads_only_its_header_at_import_time() -> None:
    """The top-level kinds of a def or class unit depend on its decorators and signature only:
    a global used in the body alone does not key its memo."""
    source = (
        "import jax.numpy as jnp\nscale = jnp.ones(3)\n\n"
        "@decorate(scale)\ndef f(x):\n    return x * offset\n"
    )
    model = ModuleModel(Document(source), False, None)
    unit = next(u for u in model.document.units if u.tree is not None and "def f" in u.source.text)
    assert _loaded_words(unit.source) >= {"decorate", "scale", "f", "x"}
    assert "offset" not in _loaded_words(unit.source)


def test_differentiated_parameters():
    model = model_of(
        """
        from functools import partial

        import equinox as eqx
        import jax

        @jax.jit
        def loss(w, x, n):
            return helper(w * 2.0, n) + x

        def helper(v, n):
            return v * n

        def second(a, b):
            return a * b

        def through(p, q):
            return p

        def filtered(model, x):
            return x

        def untouched(x):
            return x

        g1 = jax.grad(loss)
        g2 = jax.value_and_grad(second, argnums=(1,))
        g3 = jax.jacrev(partial(through, 1.0))  # the first unbound parameter: q
        g4 = jax.hessian(loss.__wrapped__, argnums=1)
        g5 = eqx.filter_grad(filtered)
        value = untouched(1.0)
        """
    )
    differentiated = {
        path: model.differentiated(model.functions[path].node)
        for path in ("loss", "helper", "second", "through", "filtered", "untouched")
    }
    assert differentiated == {
        "loss": {"w", "x"},
        "helper": {"v"},  # given `w * 2.0`; `n` is not differentiated
        "second": {"b"},
        "through": {"q"},
        "filtered": {"model"},
        "untouched": set(),
    }


def test_functions_called_from_a_traced_lambda_are_traced():
    model = model_of(
        """
        import jax
        import jax.numpy as jnp
        import numpy as np

        X = jnp.ones((4, 3))
        y = jnp.zeros(4)

        def loss(w, X, y, n):
            return X @ w - y

        def later(v):
            return v

        def untouched(v):
            return v

        def make(data):
            return jax.vmap(lambda row: later(row))(data)

        grad_fn = jax.jit(jax.grad(lambda w: loss(w, X, y, 3)))
        fast = jax.jit(lambda v: untouched(np.ones(2)) + v)
        """
    )
    loss = trace_of(model, "loss")
    # Module-level arrays are constants of the trace, not tracers.
    assert loss.traced_params == {"w"}
    assert loss.static_params == {"n"}
    assert trace_of(model, "later").traced_params == {"v"}
    # Called with a NumPy array only: traced code runs it, but nothing of it is a tracer.
    assert trace_of(model, "untouched").traced_params == frozenset()


def test_a_lambda_given_to_a_loop_traces_its_callees():
    model = model_of(
        """
        import jax

        def body(i, carry):
            return carry

        def run(x):
            return jax.lax.fori_loop(0, 3, lambda i, c: body(i, c), x)
        """
    )
    assert trace_of(model, "body").traced_params == {"i", "carry"}


def _classes_named(model: ModuleModel, name: str) -> list[ast.ClassDef]:
    return [
        record.node
        for summary in model.summaries
        for record in summary.classes
        if record.name == name
    ]


def test_attribute_writes_go_to_the_class_definition_standing_when_the_instance_was_made():
    model = model_of(
        """
        class Model:
            def __init__(self, rate):
                self.rate = rate

        first = Model(0.1)
        first.rate = 0.2

        class Model:
            def __init__(self, rate, scale):
                self.rate, self.scale = rate, scale

        second = Model(0.1, 1.0)
        second.scale = 2.0
        first.depth = 3
        first = 0
        first.ignored = 1
        """
    )
    old, new = _classes_named(model, "Model")
    assert model.attributes_set_on_instances(old) == {"rate", "depth"}
    assert model.attributes_set_on_instances(new) == {"scale"}


def test_an_instance_rebound_to_a_call_of_another_callee_is_no_longer_tracked():
    model = model_of(
        """
        class Model:
            pass

        class Model:
            pass

        m = Model()
        m = make()
        m.rate = 0.2
        """
    )
    for cls in _classes_named(model, "Model"):
        assert model.attributes_set_on_instances(cls) == frozenset()


def test_a_jitted_bound_method_of_a_name_bound_twice_is_the_method_of_the_instance_it_holds_then():
    model = model_of(
        """
        import jax

        class Counter:
            def count(self):
                return 1

        class CounterV2:
            def count(self, n):
                return n + 1

        counter = Counter()
        fast_count = jax.jit(counter.count)
        counter = CounterV2()
        fast_count_v2 = jax.jit(counter.count)
        counter = make_counter()
        unknown = jax.jit(counter.count)
        """
    )
    assert trace_of(model, "Counter.count") is not None
    assert trace_of(model, "CounterV2.count").traced_params == {"n"}


def test_an_instance_in_a_function_body_is_not_resolved_by_the_line_of_its_read():
    model = model_of(
        """
        import jax

        class Counter:
            def count(self):
                return 1

        counter = Counter()

        def step():
            return counter.count()

        counter = object()
        fast = jax.jit(step)
        """
    )
    assert trace_of(model, "Counter.count") is None


@pytest.mark.parametrize(
    ("body", "stepped"),
    [
        ("self.n += 1\nreturn self.n", {"self.n"}),
        ("global g\ng = g + 1\nreturn x + g", {"g"}),
        ("global g\ng = g + 1\nprint('trace', g)\nreturn x", set()),  # a trace counter
        ("self.n += 1\nreturn x", set()),
        ("self.n = x.shape[0]\nreturn self.n", set()),  # not from its own value
        ("self.n += 1\nif self.n > 2:\n    x = 2 * x\nreturn x", {"self.n", "x"}),  # x: local
    ],
)
def test_stepped_and_read_is_a_counter_the_function_reads_beyond_its_step(body, stepped):
    function = ast.parse("def f(self, x):\n" + textwrap.indent(body, "    ")).body[0]
    assert stepped_and_read(function) == stepped


@pytest.mark.parametrize(
    "text",
    [
        "x = f(1)\ny = g(x)  # café\nlabel = 'ünïcode\u2028words'\n",
        "class A: x = f(1); y = 2; z = 3; w = 4\n",  # a lone class run whole: its own line
        "@jit\ndef f(x):\n    return h(x)\n",  # the body runs later: not read here
    ],
)
def test_a_units_loaded_words_are_those_of_the_text_its_top_level_code_runs(text: str):
    """The words of what top-level code runs: the unit's own words (memoised, read by other
    passes) when that is its whole text, the header's words for a lone def."""
    units = Document(text).units
    for unit in units:
        assert _loaded_words(unit.source) == identifiers(_evaluated_text(unit.source))
    loaded = frozenset().union(*(_loaded_words(unit.source) for unit in units))
    assert "f" in loaded and "h" not in loaded  # a def's body is read when it runs


@pytest.mark.parametrize(
    "source",
    [
        "import jax\nimport numpy as np\nfrom jax import numpy as jnp",
        "def f(x, n=3, *, k=None) -> int:\n    return x",
        "async def g(x):\n    return x",
        "def f(x):\n    return x\nimport f",
        "import jax\ndef jax():\n    pass",
        "from m import *\ndef f():\n    pass",
        "",
    ],
)
def test_units_of_imports_and_plain_defs_bind_as_the_interpreter_finds(source):
    body = ast.parse(source).body
    interpreter = FlowInterpreter(ScopeContext(Resolver({}), False, {}), {})
    interpreter.run_block(body)
    assert plain_bindings(body) == interpreter.env


@pytest.mark.parametrize(
    "source",
    [
        "x = 1",
        "import jax\n@jax.jit\ndef f(x):\n    return x",
        "def f(x=params['w']):\n    return x",  # the subscript refines `params`
        "def f(x=(n := 3)):\n    return x",
        "def f(x) -> Array[3]:\n    return x",
        "class A:\n    pass",
    ],
)
def test_other_units_are_left_to_the_interpreter(source):
    assert plain_bindings(ast.parse(source).body) is None


def test_methods_a_class_inherits_from_a_class_of_the_module_are_traced():
    model = model_of(
        """
        import jax

        class Base:
            def helper(self, x):
                return x

            def __call__(self, x):
                return x

        class Child(Base):
            def run(self, x):
                return self.helper(x)

        @jax.jit
        def step(x):
            return Child().run(x)

        def batched(xs):
            child = Child()
            return jax.vmap(child)(xs)
        """
    )
    assert trace_of(model, "Base.helper").traced_params == {"x"}  # `self.helper` of `Child`
    assert trace_of(model, "Base.__call__").traced_params == {"x"}  # `vmap` of an instance


def test_a_base_defined_elsewhere_before_the_local_one_leaves_the_method_unknown():
    model = model_of(
        """
        import equinox as eqx
        import jax

        class Base(eqx.Module):
            def __call__(self, x):
                return x

        class Child(Base):
            pass

        class Other(Mixin, Base):  # `Mixin` may define `__call__`
            pass
        """
    )
    base_call = model.functions["Base.__call__"].node
    assert model.references.definition("Child.__call__", None) is base_call
    assert model.references.definition("Other.__call__", None) is None
