"""Loading a layer without the cyclic garbage collector walking what it builds.

A layer is ~180 objects per model (a 3,000-model layer: 550,000, some 11 per element), none of them garbage, most of them sqlglot
nodes whose parent links make cycles, so only the collector could ever free them. Left to the collector, they
would be walked by each generation in turn (the first full pass alone: 0.44 s at 3,000 models, 15% of a load).

So a load runs with the collector paused, and the first load of a process (when nothing is frozen yet) ends with
`gc.freeze()`: everything alive then moves to the permanent generation, which no collection walks. A CLI command
or the service at start-up (which froze once after loading, before this) loads once; the layers live as long as
the process. The trade, and how it is bounded:
- garbage with cycles alive at the freeze is never freed: the young generations are collected first (cheap:
  a few thousand objects), a valid layer's load makes none (0 objects on the 3,000-model layer) and its checks
  a few hundred (283 on the demo: the compiled saved queries and filters);
- a first layer dropped later (a reload, a test that loads another) stays in memory with its cycles: one
  layer, once per process. Later loads (something is frozen) leave their objects to the collector, paused
  while they load, as before: a reload never freezes what the next reload drops, and never pays a full
  collection of everything to make room for a freeze;
- a load that fails (its partly built layer is garbage with cycles) does not freeze.
Nested loads (`load_layers` over many folders, `load_layer` inside it, `build_layer` inside that) decide once,
at the outermost.
"""

from __future__ import annotations

import gc
import threading
from collections.abc import Iterator
from contextlib import contextmanager

_lock = threading.Lock()
_depth = 0  # loads in progress (nested, or on several threads)
_freeze = False  # the outermost load freezes what it built (nothing was frozen before it, and it succeeded)
_enabled = True  # the collector's state when the outermost load began


@contextmanager
def long_lived() -> Iterator[None]:
    """Build objects that live as long as the layer that holds them: the collector paused, the first load frozen."""
    global _depth, _freeze, _enabled
    with _lock:
        outer = _depth == 0
        _depth += 1
        if outer:
            _enabled = gc.isenabled()
            _freeze = gc.get_freeze_count() == 0
            if _freeze:
                gc.collect(1)  # recent garbage is not frozen with the layer
            gc.disable()
    ok = False
    try:
        yield
        ok = True
    finally:
        with _lock:
            _depth -= 1
            _freeze = _freeze and ok
            if _depth == 0:
                if _freeze:
                    gc.freeze()
                if _enabled:
                    gc.enable()
