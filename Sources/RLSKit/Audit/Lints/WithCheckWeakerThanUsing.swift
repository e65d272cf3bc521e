extension Lint {
    static let withCheckWeakerThanUsing = Lint(
        id: "1003", name: "with_check_weaker_than_using", title: "WITH CHECK weaker than USING",
        level: .error, categories: [.security],
        description: """
            An UPDATE or ALL policy checks the caller's ownership in USING (which rows may be changed) \
            but not, or not the same way, in WITH CHECK (what the changed row may look like). The \
            caller can update their own row or object so that it belongs to someone else: hand a row \
            to another user, or move an object into another user's folder. An UPDATE policy without \
            WITH CHECK is safe (PostgreSQL checks the new row against USING) and is not reported.
            """,
        remediation:
            "Repeat the ownership test of USING in WITH CHECK, or drop WITH CHECK so USING applies to the new row.",
        logic: .swift(needs: [.policies]) { catalog in
            catalog.policies.compactMap { p -> FindingDraft? in
                // Only an ownership test (a column equal to the caller) can be handed over; a
                // caller named only to exclude them (`user_id <> auth.uid()`) binds no row to anyone.
                guard ["UPDATE", "ALL"].contains(p.command), let using = p.usingExpr, let check = p.checkExpr,
                    using.hasIdentity, !using.bindings.isEmpty
                else { return nil }
                var missing = using.bindings.subtracting(check.bindings)
                // A WITH CHECK through a helper (`has_org_role(organization_id, …)`) may well check
                // the caller: only the row's own columns bound in USING still count as missing.
                if check.callsHelper { missing.formIntersection(using.rowBindings) }
                guard !(check.hasIdentity || check.callsHelper) || !missing.isEmpty else { return nil }
                let missingSorted = missing.sorted()
                let what = missingSorted.isEmpty ? "the caller" : missingSorted.joined(separator: ", ")
                return FindingDraft(
                    object: p.object,
                    detail:
                        "\(p.label) checks \(what) against the caller in USING but not in WITH CHECK, so an updated row can be handed to another user",
                    metadata: p.baseMetadata.merging(["unchecked": what]) { $1 })
            }
        },
        triggering: [
            .init(
                """
                create policy "Anyone can update their own avatar." on storage.objects for update
                  using ((select auth.uid()) = owner) with check (bucket_id = 'avatars');
                """, reports: "policy \"Anyone can update their own avatar.\" on storage.objects"),
            .init(
                """
                create table public.notes (id int primary key, owner uuid, body text);
                alter table public.notes enable row level security;
                create policy "edit own notes" on public.notes for update to authenticated
                  using (owner = (select auth.uid())) with check (body <> '');
                """, reports: "policy \"edit own notes\" on public.notes"),
        ],
        nonTriggering: [
            // USING looks the caller up in a subquery; WITH CHECK asks a helper about the row's org.
            """
            create table public.projects (id int primary key, organization_id uuid, name text);
            create table public.org_members (organization_id uuid, user_id uuid, role text);
            alter table public.projects enable row level security;
            create function public.has_org_role(o uuid, r text) returns boolean language sql stable as $$ select true $$;
            create policy edit on public.projects for update to authenticated
              using (exists (select 1 from public.org_members m where m.user_id = (select auth.uid()) and m.role = 'admin'))
              with check (public.has_org_role(organization_id, 'admin'));
            """,
            // Owners change other members' roles: the caller is only excluded, never the owner.
            """
            create table public.team_members (team_id uuid, user_id uuid, role text);
            alter table public.team_members enable row level security;
            create function public.has_role(t uuid, r text) returns boolean language sql stable as $$ select true $$;
            create policy members_role on public.team_members for update to authenticated
              using (public.has_role(team_id, 'owner') and user_id <> (select auth.uid()))
              with check (public.has_role(team_id, 'owner'));
            """,
            """
            create table public.notes (id int primary key, owner uuid, body text);
            alter table public.notes enable row level security;
            create policy "edit own notes" on public.notes for update to authenticated
              using (owner = (select auth.uid()));
            """,
            """
            create table public.notes (id int primary key, owner uuid, body text);
            alter table public.notes enable row level security;
            create policy "edit own notes" on public.notes for update to authenticated
              using (owner = (select auth.uid())) with check ((select auth.uid()) = owner and body <> '');
            """,
        ])
}
