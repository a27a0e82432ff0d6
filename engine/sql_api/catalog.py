"""The system catalogs a BI tool reads, filled from the layer as one role sees it.

`catalog_tables(database, tables)` gives each catalog table's columns (typed by PostgreSQL type name) and
rows: `pg_namespace`, `pg_class` (one row per model), `pg_attribute` (its columns), `pg_type`,
`pg_description` (the layer's descriptions), `pg_settings`, `information_schema.tables` / `.columns`
and the others clients read on connect or when listing tables, most of them empty (no indexes,
constraints, policies, partitions or publications). The listener loads them into an in-memory database
and answers the client's own catalog query there (service/pgwire/catalog_db.py).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .pgtypes import BY_NAME, TYPES
from .tables import Table

SERVER_VERSION = "15.0"
SERVER_VERSION_NUM = "150000"
OWNER_OID = 10
OWNER = "smq"
NAMESPACES = {"pg_catalog": 11, "public": 2200, "information_schema": 13000}
TABLE_OID_BASE = 16384
CLASS_OID_PG_CLASS = 1259
DATABASE_OID = 16383
DEFAULT_COLLATION = 100


@dataclass(frozen=True)
class CatalogTable:
    schema: str  # pg_catalog | information_schema
    name: str
    columns: tuple[tuple[str, str], ...]  # (name, PostgreSQL type name: oid, int4, text, bool, _int2 ...)
    rows: tuple[tuple[Any, ...], ...] = ()


def settings(database: str, user: str) -> dict[str, str]:
    """What SHOW and pg_settings answer (and the ParameterStatus values sent on connect)."""
    return {
        "server_version": SERVER_VERSION, "server_version_num": SERVER_VERSION_NUM, "server_encoding": "UTF8",
        "client_encoding": "UTF8", "DateStyle": "ISO, MDY", "IntervalStyle": "postgres", "TimeZone": "UTC",
        "integer_datetimes": "on", "standard_conforming_strings": "on", "is_superuser": "off",
        "session_authorization": user, "application_name": "", "search_path": '"$user", public',
        "transaction_isolation": "read committed", "transaction_read_only": "on", "default_transaction_read_only": "on",
        "default_transaction_isolation": "read committed", "max_identifier_length": "63", "lc_collate": "C.UTF-8",
        "lc_ctype": "C.UTF-8", "lc_messages": "C.UTF-8", "lc_monetary": "C.UTF-8", "lc_numeric": "C.UTF-8",
        "lc_time": "C.UTF-8", "extra_float_digits": "1", "statement_timeout": "0", "max_connections": "100",
        "bytea_output": "hex", "datestyle": "ISO, MDY", "timezone": "UTC", "server_name": database,
        "block_size": "8192", "ssl": "off", "default_transaction_deferrable": "off", "row_security": "on",
    }


def _t(schema: str, name: str, columns: str, rows: list[tuple[Any, ...]] | None = None) -> CatalogTable:
    cols = tuple((c.split(":")[0], c.split(":")[1] if ":" in c else "text") for c in columns.split())
    return CatalogTable(schema, name, cols, tuple(rows or ()))


def catalog_tables(database: str, tables: Mapping[str, Table], user: str = OWNER) -> list[CatalogTable]:
    """Every catalog table for one database as one role sees it (see the module docstring)."""
    models = list(tables.values())
    oids = {t.name: TABLE_OID_BASE + 2 * i for i, t in enumerate(models)}  # each table's row type takes oid + 1
    public = NAMESPACES["public"]
    out = [
        _t("pg_catalog", "pg_namespace", "oid:oid nspname:name nspowner:oid nspacl:_text",
           [(oid, name, OWNER_OID, None) for name, oid in NAMESPACES.items()]),
        _t("pg_catalog", "pg_class", " ".join([
            "oid:oid relname:name relnamespace:oid reltype:oid reloftype:oid relowner:oid relam:oid relfilenode:oid",
            "reltablespace:oid relpages:int4 reltuples:float4 relallvisible:int4 reltoastrelid:oid relhasindex:bool",
            "relisshared:bool relpersistence:char relkind:char relnatts:int2 relchecks:int2 relhasrules:bool",
            "relhastriggers:bool relhassubclass:bool relrowsecurity:bool relforcerowsecurity:bool relispopulated:bool",
            "relreplident:char relispartition:bool relrewrite:oid relfrozenxid:int8 relminmxid:int8 relacl:_text",
            "reloptions:_text relpartbound:text"]),
           [(oids[t.name], t.name, public, oids[t.name] + 1, 0, OWNER_OID, 2, 0, 0, 0, -1.0, 0, 0, False, False, "p",
             "r", len(t.columns), 0, False, False, False, False, False, True, "d", False, 0, 0, 0, None, None, None)
            for t in models]),
        _t("pg_catalog", "pg_attribute", " ".join([
            "attrelid:oid attname:name atttypid:oid attstattarget:int4 attlen:int2 attnum:int2 attndims:int4",
            "attcacheoff:int4 atttypmod:int4 attbyval:bool attalign:char attstorage:char attcompression:char",
            "attnotnull:bool atthasdef:bool atthasmissing:bool attidentity:char attgenerated:char attisdropped:bool",
            "attislocal:bool attinhcount:int4 attcollation:oid attacl:_text attoptions:_text attfdwoptions:_text"]),
           [(oids[t.name], c.name, BY_NAME[c.pg_type].oid, -1, BY_NAME[c.pg_type].length, n, 0, -1, -1,
             BY_NAME[c.pg_type].length in (1, 2, 4, 8), "i", "x" if BY_NAME[c.pg_type].length < 0 else "p", "",
             False, False, False, "", "", False, True, 0, DEFAULT_COLLATION if c.pg_type == "text" else 0, None, None, None)
            for t in models for n, c in enumerate(t.columns, start=1)]),
        _t("pg_catalog", "pg_type", " ".join([
            "oid:oid typname:name typnamespace:oid typowner:oid typlen:int2 typbyval:bool typtype:char",
            "typcategory:char typispreferred:bool typisdefined:bool typdelim:char typrelid:oid typelem:oid",
            "typarray:oid typinput:text typoutput:text typreceive:text typsend:text typmodin:text typmodout:text",
            "typanalyze:text typalign:char typstorage:char typnotnull:bool typbasetype:oid typtypmod:int4",
            "typndims:int4 typcollation:oid typdefaultbin:text typdefault:text typacl:_text"]),
           [(t.oid, t.name, NAMESPACES["pg_catalog"], OWNER_OID, t.length, t.length in (1, 2, 4, 8), "b", t.category,
             False, True, ",", 0, t.elem_oid, t.array_oid, t.name + "in", t.name + "out", t.name + "recv",
             t.name + "send", "-", "-", "-", "i", "p" if t.length > 0 else "x", False, 0, -1, 0,
             DEFAULT_COLLATION if t.name in ("text", "varchar", "name") else 0, None, None, None) for t in TYPES]
           + [(oids[t.name] + 1, t.name, public, OWNER_OID, -1, False, "c", "C", False, True, ",", oids[t.name], 0, 0,
               "record_in", "record_out", "record_recv", "record_send", "-", "-", "-", "d", "x", False, 0, -1, 0, 0,
               None, None, None) for t in models]),
        _t("pg_catalog", "pg_description", "objoid:oid classoid:oid objsubid:int4 description:text",
           [(oids[t.name], CLASS_OID_PG_CLASS, 0, t.description) for t in models if t.description]
           + [(oids[t.name], CLASS_OID_PG_CLASS, n, c.description) for t in models
              for n, c in enumerate(t.columns, start=1) if c.description]),
        _t("pg_catalog", "pg_settings", "name:text setting:text unit:text category:text short_desc:text "
           "extra_desc:text context:text vartype:text source:text min_val:text max_val:text enumvals:_text "
           "boot_val:text reset_val:text sourcefile:text sourceline:int4 pending_restart:bool",
           [(k, v, None, "smq", k, None, "user", "string", "default", None, None, None, v, v, None, None, False)
            for k, v in settings(database, user).items()]),
        _t("pg_catalog", "pg_database", "oid:oid datname:name datdba:oid encoding:int4 datlocprovider:char "
           "datistemplate:bool datallowconn:bool datconnlimit:int4 datfrozenxid:int8 datminmxid:int8 "
           "dattablespace:oid datcollate:text datctype:text daticulocale:text datcollversion:text datacl:_text",
           [(DATABASE_OID, database, OWNER_OID, 6, "c", False, True, -1, 0, 0, 1663, "C.UTF-8", "C.UTF-8", None,
             None, None)]),
        _t("pg_catalog", "pg_roles", "oid:oid rolname:name rolsuper:bool rolinherit:bool rolcreaterole:bool "
           "rolcreatedb:bool rolcanlogin:bool rolreplication:bool rolconnlimit:int4 rolpassword:text "
           "rolvaliduntil:text rolbypassrls:bool rolconfig:_text",
           [(OWNER_OID, user, False, True, False, False, True, False, -1, "********", None, False, None)]),
        _t("pg_catalog", "pg_user", "usename:name usesysid:oid usecreatedb:bool usesuper:bool userepl:bool "
           "usebypassrls:bool passwd:text valuntil:text useconfig:_text",
           [(user, OWNER_OID, False, False, False, False, "********", None, None)]),
        _t("pg_catalog", "pg_am", "oid:oid amname:name amhandler:text amtype:char",
           [(2, "heap", "heap_tableam_handler", "t"), (403, "btree", "bthandler", "i")]),
        _t("pg_catalog", "pg_collation", "oid:oid collname:name collnamespace:oid collowner:oid collprovider:char "
           "collisdeterministic:bool collencoding:int4 collcollate:text collctype:text",
           [(DEFAULT_COLLATION, "default", NAMESPACES["pg_catalog"], OWNER_OID, "d", True, -1, None, None)]),
        _t("pg_catalog", "pg_tablespace", "oid:oid spcname:name spcowner:oid spcacl:_text spcoptions:_text",
           [(1663, "pg_default", OWNER_OID, None, None)]),
        _t("pg_catalog", "pg_tables", "schemaname:name tablename:name tableowner:name tablespace:name "
           "hasindexes:bool hasrules:bool hastriggers:bool rowsecurity:bool",
           [("public", t.name, user, None, False, False, False, False) for t in models]),
        _t("pg_catalog", "pg_index", "indexrelid:oid indrelid:oid indnatts:int2 indnkeyatts:int2 indisunique:bool "
           "indnullsnotdistinct:bool indisprimary:bool indisexclusion:bool indimmediate:bool indisclustered:bool "
           "indisvalid:bool indcheckxmin:bool indisready:bool indislive:bool indisreplident:bool indkey:_int2 "
           "indcollation:_oid indclass:_oid indoption:_int2 indexprs:text indpred:text"),
        _t("pg_catalog", "pg_constraint", "oid:oid conname:name connamespace:oid contype:char condeferrable:bool "
           "condeferred:bool convalidated:bool conrelid:oid contypid:oid conindid:oid conparentid:oid "
           "confrelid:oid confupdtype:char confdeltype:char confmatchtype:char conislocal:bool coninhcount:int4 "
           "connoinherit:bool conkey:_int2 confkey:_int2 conpfeqop:_oid conppeqop:_oid conffeqop:_oid "
           "conexclop:_oid conbin:text"),
        _t("pg_catalog", "pg_attrdef", "oid:oid adrelid:oid adnum:int2 adbin:text"),
        _t("pg_catalog", "pg_inherits", "inhrelid:oid inhparent:oid inhseqno:int4 inhdetachpending:bool"),
        _t("pg_catalog", "pg_policy", "oid:oid polname:name polrelid:oid polcmd:char polpermissive:bool "
           "polroles:_oid polqual:text polwithcheck:text"),
        _t("pg_catalog", "pg_statistic_ext", "oid:oid stxrelid:oid stxname:name stxnamespace:oid stxowner:oid "
           "stxstattarget:int4 stxkeys:_int2 stxkind:_char stxexprs:text"),
        _t("pg_catalog", "pg_publication", "oid:oid pubname:name pubowner:oid puballtables:bool pubinsert:bool "
           "pubupdate:bool pubdelete:bool pubtruncate:bool pubviaroot:bool"),
        _t("pg_catalog", "pg_publication_namespace", "oid:oid pnpubid:oid pnnspid:oid"),
        _t("pg_catalog", "pg_publication_rel", "oid:oid prpubid:oid prrelid:oid prqual:text prattrs:_int2"),
        _t("pg_catalog", "pg_proc", "oid:oid proname:name pronamespace:oid proowner:oid prolang:oid prokind:char "
           "prorettype:oid proargtypes:_oid proargnames:_text prosrc:text proretset:bool"),
        _t("pg_catalog", "pg_enum", "oid:oid enumtypid:oid enumsortorder:float4 enumlabel:name"),
        _t("pg_catalog", "pg_trigger", "oid:oid tgrelid:oid tgname:name tgfoid:oid tgtype:int2 tgenabled:char "
           "tgisinternal:bool tgconstraint:oid"),
        _t("pg_catalog", "pg_rewrite", "oid:oid rulename:name ev_class:oid ev_type:char is_instead:bool"),
        _t("pg_catalog", "pg_views", "schemaname:name viewname:name viewowner:name definition:text"),
        _t("pg_catalog", "pg_matviews", "schemaname:name matviewname:name matviewowner:name tablespace:name "
           "hasindexes:bool ispopulated:bool definition:text"),
        _t("pg_catalog", "pg_extension", "oid:oid extname:name extowner:oid extnamespace:oid extrelocatable:bool "
           "extversion:text"),
        _t("pg_catalog", "pg_foreign_table", "ftrelid:oid ftserver:oid ftoptions:_text"),
        _t("pg_catalog", "pg_foreign_server", "oid:oid srvname:name srvowner:oid srvfdw:oid"),
        _t("pg_catalog", "pg_partitioned_table", "partrelid:oid partstrat:char partnatts:int2 partdefid:oid "
           "partattrs:_int2"),
        _t("pg_catalog", "pg_sequence", "seqrelid:oid seqtypid:oid seqstart:int8 seqincrement:int8 seqmax:int8 "
           "seqmin:int8 seqcache:int8 seqcycle:bool"),
        _t("pg_catalog", "pg_depend", "classid:oid objid:oid objsubid:int4 refclassid:oid refobjid:oid "
           "refobjsubid:int4 deptype:char"),
        _t("pg_catalog", "pg_range", "rngtypid:oid rngsubtype:oid"),
        _t("pg_catalog", "pg_opclass", "oid:oid opcmethod:oid opcname:name opcnamespace:oid"),
        _t("pg_catalog", "pg_event_trigger", "oid:oid evtname:name evtevent:name"),
        _t("pg_catalog", "pg_cast", "oid:oid castsource:oid casttarget:oid castfunc:oid castcontext:char"),
        _t("pg_catalog", "pg_language", "oid:oid lanname:name"),
        _t("pg_catalog", "pg_shdescription", "objoid:oid classoid:oid description:text"),
        _t("pg_catalog", "pg_stat_activity", "datid:oid datname:name pid:int4 usename:name application_name:text "
           "state:text query:text"),
        _t("pg_catalog", "pg_locks", "locktype:text database:oid relation:oid pid:int4 mode:text granted:bool"),
    ]
    out += _information_schema(database, models, user)
    return _complete(out)


def _pg_columns() -> dict[tuple[str, str], tuple[tuple[str, str], ...]]:
    """(schema, table) -> every column PostgreSQL 15 gives it (pg_columns.txt)."""
    out = {}
    for line in (Path(__file__).parent / "pg_columns.txt").read_text(encoding="utf-8").splitlines():
        if not line or line.startswith("#"):
            continue
        schema, name, columns = line.split("|")
        out[(schema, name)] = tuple((c.rsplit(":", 1)[0], c.rsplit(":", 1)[1]) for c in columns.split())
    return out


def _complete(defined: list[CatalogTable]) -> list[CatalogTable]:
    """Every table of pg_columns.txt with all its columns: the rows above where given (NULL in the other
    columns), empty otherwise; a client reading any catalog column finds it."""
    full = _pg_columns()
    by_key = {(t.schema, t.name): t for t in defined}
    out = []
    for key, columns in full.items():
        table = by_key.pop(key, None)
        if table is None:
            out.append(CatalogTable(key[0], key[1], columns))
            continue
        names = [c for c, _ in table.columns]
        types = dict(table.columns)
        merged = tuple((c, types.get(c, t)) for c, t in columns) + tuple(
            (c, t) for c, t in table.columns if c not in dict(columns))
        rows = tuple(tuple(dict(zip(names, row)).get(c) for c, _ in merged) for row in table.rows)
        out.append(CatalogTable(table.schema, table.name, merged, rows))
    return out + list(by_key.values())


def _information_schema(database: str, models: list[Table], user: str) -> list[CatalogTable]:
    def numeric(pg_type: str) -> tuple[Any, Any, Any]:
        return {"int8": (64, 2, 0), "float8": (53, 2, None), "numeric": (None, 10, None)}.get(pg_type, (None, None, None))

    columns = []
    for t in models:
        for n, c in enumerate(t.columns, start=1):
            pg = BY_NAME[c.pg_type]
            precision, radix, scale = numeric(c.pg_type)
            columns.append((database, "public", t.name, c.name, n, None, "YES", pg.info_schema, None, None,
                            precision, radix, scale, 6 if pg.category == "D" and c.pg_type != "date" else (
                                0 if c.pg_type == "date" else None), None, None, database, "pg_catalog", pg.name,
                            str(n), "NO", "NEVER", "NO", None, c.description))
    return [
        _t("information_schema", "tables", "table_catalog:name table_schema:name table_name:name table_type:text "
           "self_referencing_column_name:name reference_generation:text user_defined_type_catalog:name "
           "user_defined_type_schema:name user_defined_type_name:name is_insertable_into:text is_typed:text "
           "commit_action:text",
           [(database, "public", t.name, "BASE TABLE", None, None, None, None, None, "NO", "NO", None) for t in models]),
        _t("information_schema", "columns", " ".join([
            "table_catalog:name table_schema:name table_name:name column_name:name ordinal_position:int4",
            "column_default:text is_nullable:text data_type:text character_maximum_length:int4",
            "character_octet_length:int4 numeric_precision:int4 numeric_precision_radix:int4 numeric_scale:int4",
            "datetime_precision:int4 interval_type:text interval_precision:int4 udt_catalog:name udt_schema:name",
            "udt_name:name dtd_identifier:name is_self_referencing:text is_generated:text is_updatable:text",
            "generation_expression:text column_comment:text"]), columns),
        _t("information_schema", "schemata", "catalog_name:name schema_name:name schema_owner:name "
           "default_character_set_catalog:name default_character_set_schema:name default_character_set_name:name "
           "sql_path:text", [(database, name, user, None, None, None, None) for name in NAMESPACES]),
        _t("information_schema", "views", "table_catalog:name table_schema:name table_name:name view_definition:text "
           "check_option:text is_updatable:text is_insertable_into:text"),
        _t("information_schema", "table_constraints", "constraint_catalog:name constraint_schema:name "
           "constraint_name:name table_catalog:name table_schema:name table_name:name constraint_type:text "
           "is_deferrable:text initially_deferred:text enforced:text"),
        _t("information_schema", "key_column_usage", "constraint_catalog:name constraint_schema:name "
           "constraint_name:name table_catalog:name table_schema:name table_name:name column_name:name "
           "ordinal_position:int4 position_in_unique_constraint:int4"),
        _t("information_schema", "referential_constraints", "constraint_catalog:name constraint_schema:name "
           "constraint_name:name unique_constraint_catalog:name unique_constraint_schema:name "
           "unique_constraint_name:name match_option:text update_rule:text delete_rule:text"),
        _t("information_schema", "constraint_column_usage", "table_catalog:name table_schema:name table_name:name "
           "column_name:name constraint_catalog:name constraint_schema:name constraint_name:name"),
        _t("information_schema", "routines", "specific_catalog:name specific_schema:name specific_name:name "
           "routine_catalog:name routine_schema:name routine_name:name routine_type:text data_type:text"),
        _t("information_schema", "sequences", "sequence_catalog:name sequence_schema:name sequence_name:name "
           "data_type:text"),
        _t("information_schema", "triggers", "trigger_catalog:name trigger_schema:name trigger_name:name "
           "event_object_table:name"),
        _t("information_schema", "character_sets", "character_set_catalog:name character_set_schema:name "
           "character_set_name:name character_repertoire:name form_of_use:name default_collate_catalog:name "
           "default_collate_schema:name default_collate_name:name",
           [(None, None, "UTF8", "UCS", "UTF8", database, "pg_catalog", "C.UTF-8")]),
    ]


def table_oids(tables: Mapping[str, Table]) -> dict[str, int]:
    """Each table's OID in pg_class (the same numbering catalog_tables uses)."""
    return {t.name: TABLE_OID_BASE + 2 * i for i, t in enumerate(tables.values())}
