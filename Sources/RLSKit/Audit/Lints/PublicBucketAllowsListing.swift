extension Lint {
    static let publicBucketAllowsListing = Lint(
        id: "0025", name: "public_bucket_allows_listing", title: "Public bucket allows listing",
        level: .warn, categories: [.security],
        description: """
            A public bucket serves its files by URL without any policy. A broad SELECT policy on \
            storage.objects for that bucket (one that does not check who the caller is) adds nothing \
            for downloads but lets every client list all object names in the bucket.
            """,
        remediation: "Drop the SELECT policy (public URLs keep working), or restrict it to the caller's own folder.",
        logic: .swift(needs: [.policies, .buckets]) { catalog in
            catalog.buckets.filter(\.isPublic).compactMap { bucket -> FindingDraft? in
                let broad = catalog.policies.filter { p in
                    guard p.isStorageObjects, p.permissive, p.command == "SELECT" || p.command == "ALL",
                        !p.apiRoles.isEmpty, let using = p.usingExpr, !using.hasOwnerCheck
                    else { return false }
                    return using.bucketIds.contains(bucket.id) || !using.canonical.contains("bucket_id")
                }
                guard !broad.isEmpty else { return nil }
                let names = broad.map { AuditNames.policy($0.name) }.sorted().joined(separator: ", ")
                let roles = Set(broad.flatMap(\.apiRoles)).sorted().joined(separator: " and ")
                return FindingDraft(
                    object: AuditObject(schema: "storage", name: bucket.id, kind: "bucket"),
                    detail:
                        "public bucket \(bucket.id) lets \(roles) list every object through \(names) (public URLs need no SELECT policy)",
                    metadata: ["policies": names])
            }
        },
        triggering: [
            .init(
                """
                insert into storage.buckets (id, name, public) values ('photos', 'photos', true);
                create policy "photos are public" on storage.objects for select using (bucket_id = 'photos');
                """, reports: "bucket storage.photos"),
            .init(
                """
                -- Signed in is not an owner check: every user lists every object.
                insert into storage.buckets (id, name, public) values ('photos', 'photos', true);
                create policy "signed-in list" on storage.objects for select to authenticated
                  using (bucket_id = 'photos' and (select auth.uid()) is not null);
                """, reports: "bucket storage.photos"),
        ],
        nonTriggering: [
            """
            insert into storage.buckets (id, name, public) values ('photos', 'photos', true);
            create policy "own photos" on storage.objects for select to authenticated
              using (bucket_id = 'photos' and (storage.foldername(name))[1] = (select auth.uid())::text);
            """,
            """
            insert into storage.buckets (id, name, public) values ('photos', 'photos', false);
            create policy "photos readable" on storage.objects for select using (bucket_id = 'photos');
            """,
            """
            -- Listing limited to the caller's teams' folders.
            create function public.my_team_ids() returns setof text language sql stable
              as $$ select 'a' where auth.uid() is not null $$;
            insert into storage.buckets (id, name, public) values ('photos', 'photos', true);
            create policy "team photos" on storage.objects for select to authenticated
              using (bucket_id = 'photos' and (storage.foldername(name))[1] in (select public.my_team_ids()));
            """,
            """
            -- Listing limited to folders of the caller's orgs, through a helper.
            create function public.in_org(o text) returns boolean language sql stable
              as $$ select o is not null and auth.uid() is not null $$;
            insert into storage.buckets (id, name, public) values ('photos', 'photos', true);
            create policy "org photos" on storage.objects for select to authenticated
              using (bucket_id = 'photos' and public.in_org((storage.foldername(name))[1]));
            """,
        ])
}
