extension Lint {
    static let fkeyToAuthUnique = Lint(
        id: "0021", name: "fkey_to_auth_unique", title: "Foreign key to auth.users through a non-primary unique index",
        level: .error, categories: [.security],
        description: """
            A foreign key references auth.users through a unique constraint other than its primary \
            key (email, phone). Supabase Auth owns those indexes and may change them; the key then \
            blocks Auth's migrations, or matches a different user after an email or phone change.
            """,
        remediation: "Reference `auth.users (id)` instead.",
        logic: .sql(
            """
            select n.nspname as schema, c.relname as name, 'foreign key' as kind, con.conname::text as member,
                   format('foreign key %s on %s.%s references auth.users through unique index %s, not its primary key',
                          \(SQLParts.ident("con.conname")), \(SQLParts.ident("n.nspname")), \(SQLParts.ident("c.relname")), \(SQLParts.ident("ic.relname"))) as detail,
                   jsonb_build_object('index', ic.relname)::text as metadata
            from pg_catalog.pg_constraint con
            join pg_catalog.pg_class c on c.oid = con.conrelid
            join pg_catalog.pg_namespace n on n.oid = c.relnamespace
            join pg_catalog.pg_class ic on ic.oid = con.conindid
            where con.contype = 'f' and con.confrelid = to_regclass('auth.users')
              and not exists (select 1 from pg_catalog.pg_index i where i.indexrelid = con.conindid and i.indisprimary)
              and \(SchemaLists.notSystem("n")) and \(SQLParts.notExtensionMember("c"))
            """),
        triggering: [
            .init(
                """
                create table public.contacts (id int primary key, phone text references auth.users (phone));
                """, reports: "foreign key contacts_phone_fkey on public.contacts")
        ],
        nonTriggering: [
            """
            create table public.contacts (id int primary key, user_id uuid references auth.users (id));
            """
        ])
}
