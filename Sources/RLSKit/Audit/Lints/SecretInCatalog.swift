extension Lint {
    static let secretInCatalog = Lint(
        id: "1004", name: "secret_in_catalog", title: "Secret written into the catalog",
        level: .error, categories: [.security],
        description: """
            A service key (a service_role JWT or an `sb_secret_…` key), another JWT, or a password \
            inside a connection URL is written into a function body, a view definition, a column \
            default or a comment. Every role that can connect, anon included, can read those through \
            pg_proc, pg_views, pg_attrdef and pg_description; the service key bypasses all RLS. The \
            secret itself is never printed, only a redacted prefix. Anon keys are public and not reported.
            """,
        remediation:
            "Rotate the key now, then read it at run time from Supabase Vault or from a table no API role can read.",
        logic: .swift(needs: [.secretCandidates]) { catalog in
            catalog.secretCandidates.compactMap { c -> FindingDraft? in
                let matches = SecretScanner.scan(c.text)
                guard !matches.isEmpty else { return nil }
                let object: AuditObject
                let place: String
                switch c.kind {
                case "column":
                    object = AuditObject(schema: c.schema, name: c.name, kind: "column", member: c.member)
                    place =
                        "the default of column \(AuditNames.qualified(c.schema, c.name)).\(AuditNames.ident(c.member ?? ""))"
                case "trigger":
                    object = AuditObject(schema: c.schema, name: c.name, kind: "trigger", member: c.member)
                    place =
                        "the arguments of trigger \(AuditNames.ident(c.member ?? "")) on \(AuditNames.qualified(c.schema, c.name))"
                case "comment":
                    object = AuditObject(schema: c.schema, name: c.name, kind: "comment", member: c.member)
                    place = "the comment on \(c.member ?? "object") \(c.name)"
                default:
                    object = AuditObject(schema: c.schema, name: c.name, kind: c.kind)
                    place =
                        "the \(c.place) of \(c.kind) \(c.kind == "function" ? AuditNames.function(c.schema, c.name) : AuditNames.qualified(c.schema, c.name))"
                }
                let what = matches.map { "a \($0.kind) (\($0.redacted))" }
                let unique = what.reduce(into: [String]()) { if !$0.contains($1) { $0.append($1) } }
                return FindingDraft(
                    object: object,
                    detail: "\(place) contains \(unique.joined(separator: ", ")), readable by every role",
                    metadata: ["kinds": Set(matches.map(\.kind)).sorted().joined(separator: ","), "place": c.place],
                    key: c.place)
            }
        },
        triggering: [
            .init(
                """
                create function public.call_api() returns text language sql set search_path = '' as $$
                  select 'Bearer eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJyb2xlIjoic2VydmljZV9yb2xlIiwiaXNzIjoic3VwYWJhc2UifQ.c2lnbmF0dXJlLW5vdC1yZWFs'
                $$;
                """, reports: "function public.call_api()"),
            .init(
                """
                create table public.jobs (id int primary key, target text default 'postgresql://worker:hunter2hunter2@db.example.com:5432/app');
                """, reports: "column public.jobs.target"),
            .init(
                """
                create table public.jobs (id int primary key);
                comment on table public.jobs is 'worker key: sb_secret_AbCdEfGhIjKlMnOpQrStUv';
                """, reports: "comment on table public.jobs"),
            .init(
                """
                -- A database webhook whose headers carry the service key.
                create table public.orders (id int primary key);
                create trigger orders_webhook after insert on public.orders for each row
                  execute function supabase_functions.http_request('https://example.com/hook', 'POST',
                    '{"Authorization":"Bearer eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJyb2xlIjoic2VydmljZV9yb2xlIiwiaXNzIjoic3VwYWJhc2UifQ.c2lnbmF0dXJlLW5vdC1yZWFs"}',
                    '{}', '1000');
                """, reports: "trigger public.orders (orders_webhook)"),
        ],
        nonTriggering: [
            """
            -- An anon key is public by design.
            create function public.anon_key() returns text language sql set search_path = '' as $$
              select 'eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJyb2xlIjoiYW5vbiIsImlzcyI6InN1cGFiYXNlIn0.c2lnbmF0dXJlLW5vdC1yZWFs'
            $$;
            """,
            """
            comment on schema public is 'connect with postgresql://user:<password>@host/db';
            """,
            """
            -- A webhook that sends the public anon key.
            create table public.orders (id int primary key);
            create trigger orders_webhook after insert on public.orders for each row
              execute function supabase_functions.http_request('https://example.com/hook', 'POST',
                '{"Authorization":"Bearer eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJyb2xlIjoiYW5vbiIsImlzcyI6InN1cGFiYXNlIn0.c2lnbmF0dXJlLW5vdC1yZWFs"}',
                '{}', '1000');
            """,
        ])
}
