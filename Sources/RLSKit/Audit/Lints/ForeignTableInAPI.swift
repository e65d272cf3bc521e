extension Lint {
    static let foreignTableInAPI = Lint(
        id: "0017", name: "foreign_table_in_api", title: "Foreign table in the API",
        level: .warn, categories: [.security],
        description: """
            A foreign table in an exposed schema is selectable by anon or authenticated. Foreign tables \
            have no row level security, so the remote rows are readable through the API.
            """,
        remediation: "Move it to a schema the API does not expose, or revoke SELECT from anon and authenticated.",
        logic: .sql(SQLParts.selectableWithoutRLS(relkind: "f", kind: "foreign table")),
        triggering: [
            .init(
                """
                create foreign data wrapper rlskit_dummy_fdw;
                create server rlskit_dummy_server foreign data wrapper rlskit_dummy_fdw;
                create foreign table public.remote_notes (id int) server rlskit_dummy_server;
                grant select on public.remote_notes to authenticated;
                """, reports: "foreign table public.remote_notes")
        ],
        nonTriggering: [
            """
            create foreign data wrapper rlskit_dummy_fdw;
            create server rlskit_dummy_server foreign data wrapper rlskit_dummy_fdw;
            create foreign table public.remote_notes (id int) server rlskit_dummy_server;
            revoke all on public.remote_notes from public, anon, authenticated;
            """
        ])
}
