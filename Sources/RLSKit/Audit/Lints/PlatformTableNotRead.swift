extension Lint {
    static let platformTableNotRead = Lint(
        id: "1012", name: "platform_table_not_read",
        title: "Platform table replaced: not read",
        level: .warn, categories: [.security],
        description: """
            storage.buckets is not a plain table the audit can read without running the project's \
            code: it was replaced by a view (over a function), has rules, a column of the project's \
            own type or a computed one, or row level security whose policies apply to the auditor. \
            Reading it would run that code with the auditor's rights, so rlskit does not, and the \
            lints about buckets (0025) did not look at any bucket.
            """,
        remediation:
            "Keep storage.buckets the platform's plain table (drop the view, rules or policies put on it), or audit as a role row level security does not apply to.",
        logic: .swift(needs: [.buckets]) { catalog in
            catalog.unread.map { u in
                FindingDraft(
                    object: AuditObject(schema: u.schema, name: u.table, kind: "table"),
                    detail: "\(u.line); the bucket lints saw no bucket", metadata: [:])
            }
        },
        triggering: [
            .init(
                """
                -- A view over a function that runs with the reader's rights.
                create table public.bucket_log (at timestamptz default now());
                create function public.buckets_logged() returns setof storage.buckets language plpgsql as $$
                begin insert into public.bucket_log default values; return query select * from storage.buckets_data; end $$;
                alter table storage.buckets rename to buckets_data;
                create view storage.buckets as select * from public.buckets_logged();
                """, reports: "table storage.buckets"),
            .init(
                """
                -- A rule on the table.
                create table public.bucket_log (at timestamptz default now());
                create rule log_buckets as on update to storage.buckets do also insert into public.bucket_log default values;
                """, reports: "table storage.buckets"),
        ],
        nonTriggering: [
            "insert into storage.buckets (id, name, public) values ('photos', 'photos', true);"
        ])
}
