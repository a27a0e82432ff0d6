"""Access roles: what one role may see, on every path, decided in one package.

The order of evaluation, for a query or raw SQL under a role:

1. **Lineage** (`lineage.py`): the columns that hold hidden values. A role's `hidden` elements name them; every
   column a hidden element reads is secret, and so is every column joined to a secret one (both sides of a join
   key) and every entity key reading one, to a fixpoint.
2. **Visibility** (`lineage.visibility`): the elements the role may name. Its declared `hidden`, and every
   dimension, measure, metric and entity that reads a secret column (or a hidden input): hidden by lineage; then each
   semi-additive measure whose non-additive dimension or window groupings are hidden, and, to a fixpoint, each metric
   whose inputs, filters (its own, its inputs', a conversion's) or cumulative time dimension name a hidden element. The
   resolver treats them as unknown names (SMQ, MetricFlow's names, Cube members, the SQL API, listings, MCP and the
   agent all ask the same object).
3. **Row filters** (`roles.py`): per model, the role's filtered subquery: the model's rows inner-joined along its
   many_to_one/one_to_one paths to each filtered model, the filter applied, fenced for the engine (dialects/) so a
   caller's predicate never runs on rows the filter removed. Compiled queries read models only through these.
4. **Raw SQL** (`readpolicy.py`, `allowlist.py`, then `roles.apply_role_to_sql`): the read policy refuses catalogs,
   tables outside the layer, functions off the allow-list; then each physical table of a restricted model is
   replaced by its filtered subquery (without secret columns), or the SQL is refused for the role. Never unfiltered.
"""
