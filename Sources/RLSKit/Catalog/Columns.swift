/// Columns of tables, as each reader needs them. `Catalog.columnsSQL` (the seeder's, for the
/// tables an access file declares) is beside `Catalog.tables`.
extension Catalog {
    /// `rlskit init`: every column of the RLS tables in the schemas `$1`, in order, with the
    /// single-column foreign key it is part of, for drafting owners and groups.
    static let rlsColumnsSQL = """
        select n.nspname::text as schema, c.relname::text as name, a.attname::text as col,
               format_type(a.atttypid, a.atttypmod) as type,
               \(SQLParts.baseTypeName("t")) as base,
               \(SQLParts.enumLabels("t")) as labels,
               fk.s as ref_schema, fk.t as ref_table, fk.c as ref_column,
               (a.attgenerated = '' and a.attidentity = '') as writable
          from pg_class c join pg_namespace n on n.oid = c.relnamespace
          join pg_attribute a on a.attrelid = c.oid and a.attnum > 0 and not a.attisdropped
          join pg_type t on t.oid = a.atttypid
          left join lateral (
            select fn.nspname::text as s, fc.relname::text as t, fa.attname::text as c
              \(SQLParts.singleColumnReference("c.oid", "a.attnum"))) fk on true
         where c.relkind in ('r', 'p') and c.relrowsecurity and n.nspname = any($1)
         order by 1, 2, a.attnum
        """

    /// `rlskit init`: the unique keys of the RLS tables in the schemas `$1`. Unlike
    /// `Catalog.uniqueSQL`, partial indexes are left out here (a draft only needs whole keys).
    static let rlsUniqueKeysSQL = """
        select n.nspname::text as schema, c.relname::text as name,
               array(select a.attname::text from unnest(i.indkey) k(n) join pg_attribute a on a.attrelid = c.oid and a.attnum = k.n) as cols
          from pg_index i join pg_class c on c.oid = i.indrelid join pg_namespace n on n.oid = c.relnamespace
         where i.indisunique and i.indpred is null and c.relrowsecurity and n.nspname = any($1)
        """

    /// The function probe: the columns of the tables in the schemas `$1` and their types, for
    /// the rows it takes arguments from.
    static let schemaColumnsSQL = """
        select n.nspname as schema, c.relname as table_name, a.attname as column_name,
               pg_catalog.format_type(a.atttypid, null) as type
        from pg_catalog.pg_attribute a join pg_catalog.pg_class c on c.oid = a.attrelid
        join pg_catalog.pg_namespace n on n.oid = c.relnamespace
        where n.nspname = any($1::text[]) and c.relkind in ('r', 'p') and a.attnum > 0 and not a.attisdropped
        order by 1, 2, a.attnum
        """

    /// The audit's self-comparison fix: the columns (and single-column foreign key targets) of
    /// tables named `schema.table` in `$1` or by bare name in `$2`.
    static let namedTableColumnsSQL = """
        select n.nspname as schema, c.relname as table_name, a.attname as column_name,
               (select fn.nspname || '.' || fc.relname
                \(SQLParts.singleColumnReference("c.oid", "a.attnum"))) as refs
        from pg_catalog.pg_class c
        join pg_catalog.pg_namespace n on n.oid = c.relnamespace
        join pg_catalog.pg_attribute a on a.attrelid = c.oid and a.attnum > 0 and not a.attisdropped
        where c.relkind in ('r', 'p') and (n.nspname || '.' || c.relname = any($1::text[]) or c.relname = any($2::text[]))
        """
}
