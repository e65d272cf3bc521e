extension Lint {
    static let sensitiveColumnNames = [
        "password", "passwd", "password_hash", "hashed_password", "pass_hash", "secret", "secret_key", "client_secret",
        "api_key", "apikey", "api_secret", "access_token", "refresh_token", "auth_token", "session_token", "token",
        "private_key", "ssn", "social_security_number", "credit_card", "credit_card_number", "card_number", "cvv",
        "cvc",
        "iban", "tax_id", "national_id", "passport_number", "pin", "otp", "otp_secret", "mfa_secret", "totp_secret",
    ]

    static let sensitiveColumnsExposed = Lint(
        id: "0023", name: "sensitive_columns_exposed", title: "Sensitive columns readable without RLS",
        level: .error, categories: [.security],
        description: """
            A table in an exposed schema has row level security disabled, anon or authenticated can \
            select it, and it has columns whose names suggest secrets or personal data (password, \
            token, api_key, ssn, card number…). Every value is readable through the API.
            """,
        remediation:
            "Enable row level security and add policies, revoke SELECT from the API roles, or move the columns to a table in a private schema.",
        logic: .sql(
            """
            select n.nspname as schema, c.relname as name, 'table' as kind, null::text as member,
                   format('table %s.%s has row level security disabled and %s can read its sensitive column%s %s',
                          \(SQLParts.ident("n.nspname")), \(SQLParts.ident("c.relname")), api.roles, case when cols.count = 1 then '' else 's' end, cols.names) as detail,
                   jsonb_build_object('columns', cols.names, 'roles', api.roles)::text as metadata
            from pg_catalog.pg_class c
            join pg_catalog.pg_namespace n on n.oid = c.relnamespace
            cross join lateral (select \(SQLParts.apiRolesWithSelect("c"))) api(roles)
            cross join lateral (
              select count(*) as count, string_agg(\(SQLParts.ident("a.attname")), ', ' order by a.attnum) as names
              from pg_catalog.pg_attribute a
              where a.attrelid = c.oid and a.attnum > 0 and not a.attisdropped
                and lower(a.attname) in (\(SchemaLists.sqlList(sensitiveColumnNames)))
            ) cols
            where c.relkind in ('r', 'p') and not c.relrowsecurity and n.nspname = any($1::text[])
              and api.roles is not null and cols.count > 0 and \(SQLParts.notExtensionMember("c"))
            """),
        triggering: [
            .init(
                """
                create table public.accounts (id int primary key, email text, password text);
                grant select on public.accounts to anon;
                """, reports: "table public.accounts")
        ],
        nonTriggering: [
            """
            create table public.accounts (id int primary key, email text, password text);
            alter table public.accounts enable row level security;
            grant select on public.accounts to anon;
            """
        ])
}
