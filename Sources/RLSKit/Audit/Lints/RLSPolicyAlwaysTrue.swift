extension Lint {
    /// Why an INSERT `with check (true)` harms no one, or nil: the new row is the caller's own,
    /// or the table is a public form (sign-up, waitlist, contact) no API role reads back.
    static func insertCreates(_ p: PolicyRow, _ catalog: AuditCatalog) -> String? {
        guard let t = catalog.insertTargets[p.tableName] else { return nil }
        if let own = t.ownRow { return "each new row is the caller's own (\(own))" }
        let readable = catalog.policies.contains { q in
            q.tableName == p.tableName && q.permissive && ["SELECT", "ALL"].contains(q.command) && !q.apiRoles.isEmpty
        }
        if !readable, t.namesNoUser {
            return "no API role may read \(p.displayTable) and no column names a user: a public form entry"
        }
        return nil
    }

    static let rlsPolicyAlwaysTrue = Lint(
        id: "0024", name: "rls_policy_always_true", title: "Write policy that is always true",
        level: .warn, categories: [.security],
        description: """
            A permissive INSERT, UPDATE, DELETE or ALL policy for API callers has `using (true)` or \
            `with check (true)`: anyone it applies to may write or delete every row. A `using (true)` \
            SELECT policy is an intended public read and is not reported. An INSERT that can only \
            create the caller's own row (a CHECK constraint or a BEFORE INSERT trigger ties it to \
            auth.uid()) or a public form entry (sign-up, waitlist, contact: no API role reads the \
            table and no column names a user) is listed at INFO.
            """,
        remediation:
            "Restrict the policy to the caller's own rows, e.g. `using ((select auth.uid()) = user_id)`, or limit it to service_role.",
        logic: .swift(needs: [.policies, .insertTargets]) { catalog in
            catalog.policies.compactMap { p -> FindingDraft? in
                guard p.permissive, p.command != "SELECT", !p.apiRoles.isEmpty else { return nil }
                var parts: [String] = []
                if p.command != "INSERT", p.usingExpr?.isTrue == true { parts.append("using (true)") }
                if p.command != "DELETE", p.checkExpr?.isTrue == true { parts.append("with check (true)") }
                guard !parts.isEmpty else { return nil }
                let verb = ["INSERT": "insert", "UPDATE": "update", "DELETE": "delete"][p.command] ?? "read and write"
                var detail =
                    "\(p.label) has \(parts.joined(separator: " and ")): \(p.apiRoles.joined(separator: " and ")) may \(verb) any row"
                let harmless = p.command == "INSERT" ? insertCreates(p, catalog) : nil
                if let harmless { detail += "; \(harmless), so it is listed for review only" }
                return FindingDraft(
                    object: p.object, detail: detail, metadata: p.baseMetadata, level: harmless == nil ? nil : .info)
            }
        },
        triggering: [
            .init(
                """
                create table public.notes (id int primary key, owner uuid);
                alter table public.notes enable row level security;
                create policy "anyone deletes" on public.notes for delete to authenticated using (true);
                """, reports: "policy \"anyone deletes\" on public.notes"),
            .init(
                """
                create table public.notes (id int primary key, owner uuid);
                alter table public.notes enable row level security;
                create policy "anyone writes" on public.notes for insert with check (true);
                """, reports: "policy \"anyone writes\" on public.notes"),
            .init(
                """
                -- The owner defaults to the caller, but the request may send another one.
                create table public.notes (id int primary key, owner uuid default auth.uid() references auth.users);
                alter table public.notes enable row level security;
                create policy "own notes" on public.notes for select to authenticated using (owner = (select auth.uid()));
                create policy "anyone adds notes" on public.notes for insert to authenticated with check (true);
                """, reports: "policy \"anyone adds notes\" on public.notes"),
            .init(
                """
                -- A form everyone reads back (a guestbook): not a private entry.
                create table public.guestbook (id bigint generated always as identity primary key, body text);
                alter table public.guestbook enable row level security;
                create policy "read the book" on public.guestbook for select using (true);
                create policy "sign the book" on public.guestbook for insert with check (true);
                """, reports: "policy \"sign the book\" on public.guestbook"),
        ],
        nonTriggering: [
            """
            create table public.notes (id int primary key, owner uuid);
            alter table public.notes enable row level security;
            create policy "public read" on public.notes for select using (true);
            """,
            """
            create table public.notes (id int primary key, owner uuid);
            alter table public.notes enable row level security;
            create policy "server writes" on public.notes for all to service_role using (true);
            """,
            """
            -- Listed at INFO: a CHECK ties the new row to its author.
            create table public.posts (id int primary key, author uuid default auth.uid() check (author = auth.uid()));
            alter table public.posts enable row level security;
            create policy "anyone posts" on public.posts for insert to authenticated with check (true);
            """,
            """
            -- Listed at INFO: a trigger sets the owner, whatever the request sends.
            create table public.notes (id int primary key, owner uuid references auth.users, body text);
            create function public.set_owner() returns trigger language plpgsql as $$
            begin new.owner := auth.uid(); return new; end $$;
            create trigger set_owner before insert on public.notes for each row execute function public.set_owner();
            alter table public.notes enable row level security;
            create policy "own notes" on public.notes for select to authenticated using (owner = (select auth.uid()));
            create policy "anyone adds notes" on public.notes for insert to authenticated with check (true);
            """,
            """
            -- Listed at INFO: a waitlist and a contact form no API role reads back.
            create table public.waitlist (id bigint generated always as identity primary key, email text not null);
            create table public.contact_messages (id bigint generated always as identity primary key, body text);
            alter table public.waitlist enable row level security;
            alter table public.contact_messages enable row level security;
            create policy "join the waitlist" on public.waitlist for insert to anon, authenticated with check (true);
            create policy "write to us" on public.contact_messages for insert with check (true);
            create policy "staff read" on public.contact_messages for select to service_role using (true);
            """,
        ])
}
