extension Lint {
    static let materializedViewInAPI = Lint(
        id: "0016", name: "materialized_view_in_api", title: "Materialized view in the API",
        level: .warn, categories: [.security],
        description: """
            A materialized view in an exposed schema is selectable by anon or authenticated. \
            Materialized views have no row level security, so every row it holds is readable through \
            the API, whatever the policies of the tables it was built from.
            """,
        remediation: "Move it to a schema the API does not expose, or revoke SELECT from anon and authenticated.",
        logic: .sql(SQLParts.selectableWithoutRLS(relkind: "m", kind: "materialized view")),
        triggering: [
            .init(
                """
                create materialized view public.stats as select 1 as n;
                grant select on public.stats to anon;
                """, reports: "materialized view public.stats")
        ],
        nonTriggering: [
            """
            create materialized view public.stats as select 1 as n;
            revoke all on public.stats from public, anon, authenticated;
            """
        ])
}
