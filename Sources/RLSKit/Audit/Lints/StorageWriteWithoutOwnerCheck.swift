extension Lint {
    static let storageWriteWithoutOwnerCheck = Lint(
        id: "1001", name: "storage_write_without_owner_check",
        title: "Storage upload or update with no owner or folder check",
        level: .error, categories: [.security],
        description: """
            An INSERT, UPDATE or ALL policy on storage.objects for API callers checks only the bucket \
            (or nothing), or checks who the caller is without tying the object's name or owner to them \
            (`exists (select 1 from memberships m where m.user_id = auth.uid())`): any caller it applies \
            to (anon too, for PUBLIC) may upload or overwrite objects anywhere in the bucket, including \
            other users' folders. A helper called with the object's folder (`is_member((storage.foldername(name))[1]::uuid)`) \
            or a set of the caller's folders (`(storage.foldername(name))[1] in (select my_team_ids())`) counts as a check. \
            Supabase's own advisor skips the storage schema; this lint does not.
            """,
        remediation:
            "Add an owner or folder check, e.g. `with check (bucket_id = 'avatars' and (storage.foldername(name))[1] = (select auth.uid())::text)`, and limit the policy `to authenticated`.",
        logic: .swift(needs: [.policies]) { catalog in
            catalog.policies.compactMap { p -> FindingDraft? in
                guard p.isStorageObjects, p.permissive, ["INSERT", "UPDATE", "ALL"].contains(p.command),
                    !p.apiRoles.isEmpty
                else { return nil }
                // UPDATE/ALL: an identity check in USING or WITH CHECK counts here; a WITH CHECK
                // weaker than USING is with_check_weaker_than_using's finding.
                let checked = p.command == "INSERT" ? [p.checkExpr] : [p.usingExpr, p.checkExpr]
                guard !checked.contains(where: { $0?.hasOwnerCheck == true }) else { return nil }
                let buckets = Set(p.expressions.flatMap(\.bucketIds)).sorted()
                let place =
                    buckets.isEmpty
                    ? "in any bucket"
                    : "anywhere in bucket\(buckets.count > 1 ? "s" : "") \(buckets.joined(separator: ", "))"
                let verb =
                    p.command == "INSERT"
                    ? "upload" : p.command == "UPDATE" ? "overwrite objects" : "upload and overwrite objects"
                let why =
                    checked.contains(where: { $0?.hasIdentity == true })
                    ? "it checks who the caller is but ties no owner or folder of the object to them"
                    : "it checks no owner or folder"
                return FindingDraft(
                    object: p.object,
                    detail: "\(p.label) lets \(p.rolesText) \(verb) \(place): \(why)",
                    metadata: p.baseMetadata.merging(["buckets": buckets.joined(separator: ",")]) { $1 })
            }
        },
        triggering: [
            .init(
                """
                insert into storage.buckets (id, name) values ('avatars', 'avatars');
                create policy "Anyone can upload an avatar." on storage.objects for insert with check (bucket_id = 'avatars');
                """, reports: "policy \"Anyone can upload an avatar.\" on storage.objects"),
            .init(
                """
                -- Only the bucket is a bucket name; the other strings are not.
                insert into storage.buckets (id, name) values ('logos', 'logos');
                create policy "logos" on storage.objects for insert to authenticated
                  with check (bucket_id = 'logos' and storage.extension(name) = 'png' and name <> '.');
                """, reports: "policy \"logos\" on storage.objects"),
            .init(
                """
                -- Any member of any org may upload anywhere: the object's folder is never compared.
                create table public.crew (org_id uuid, user_id uuid);
                insert into storage.buckets (id, name) values ('org-docs', 'org-docs');
                create policy "members upload" on storage.objects for insert to authenticated with check (
                  bucket_id = 'org-docs'
                  and exists (select 1 from public.crew c where c.user_id = (select auth.uid())));
                create policy "members replace" on storage.objects for update to authenticated
                  using (bucket_id = 'org-docs' and auth.uid() is not null and storage.extension(name) = 'pdf');
                """, reports: "policy \"members upload\" on storage.objects",
                "policy \"members replace\" on storage.objects"),
        ],
        nonTriggering: [
            """
            insert into storage.buckets (id, name) values ('avatars', 'avatars');
            create policy "Users upload their own avatar" on storage.objects for insert to authenticated
              with check (bucket_id = 'avatars' and (storage.foldername(name))[1] = (select auth.uid())::text);
            """,
            """
            -- The owner check goes through a helper over the object name.
            create function public.my_org_ids() returns setof int language sql stable
              as $$ select 1 where auth.uid() is not null $$;
            insert into storage.buckets (id, name) values ('logos', 'logos');
            create policy "org logos" on storage.objects for insert to authenticated with check (
              bucket_id = 'logos'
              and (replace(storage.filename(name), concat('.', storage.extension(name)), ''))::integer
                  in (select public.my_org_ids()));
            """,
            """
            -- A team folder checked by membership.
            create function public.my_team_ids() returns setof text language sql stable
              as $$ select 'a' where auth.uid() is not null $$;
            insert into storage.buckets (id, name) values ('teams', 'teams');
            create policy "team files" on storage.objects for insert to authenticated with check (
              bucket_id = 'teams' and (storage.foldername(name))[1] in (select public.my_team_ids()));
            """,
            """
            -- The second folder, against the caller's orgs cast to text (printed `(my_orgs())::text`).
            create function public.my_orgs() returns setof uuid language sql stable
              as $$ select gen_random_uuid() where auth.uid() is not null $$;
            insert into storage.buckets (id, name) values ('media', 'media');
            create policy "org media" on storage.objects for insert to authenticated with check (
              bucket_id = 'media' and (storage.foldername(name))[2] in (select public.my_orgs()::text));
            create policy "org media kept" on storage.objects for update to authenticated using (
              bucket_id = 'media' and (storage.foldername(name))[2]::uuid in (select o from public.my_orgs() o));
            """,
            """
            -- The owner column, or the name matched against the caller's id.
            create schema if not exists private;
            create function private.signed_in() returns boolean language sql stable as $$ select auth.uid() is not null $$;
            insert into storage.buckets (id, name) values ('files', 'files');
            create policy "own uploads" on storage.objects for insert to authenticated
              with check (bucket_id = 'files' and owner = auth.uid() and private.signed_in());
            create policy "own folder" on storage.objects for update
              using (bucket_id = 'files' and private.signed_in() and name ~ ('^' || auth.uid()::text || '/'));
            """,
            """
            -- Membership of the object's folder through helpers: private or public, wrapped or not, uuid or text.
            create schema if not exists private;
            create table public.crew (org_id uuid, user_id uuid);
            create function private.in_crew(o uuid) returns boolean language sql stable security definer set search_path = ''
              as $$ select exists (select 1 from public.crew where org_id = o and user_id = (select auth.uid())) $$;
            create function public.in_crew_text(o text) returns boolean language sql stable
              as $$ select exists (select 1 from public.crew where org_id::text = o and user_id = auth.uid()) $$;
            insert into storage.buckets (id, name) values ('org-docs', 'org-docs');
            create policy "crew upload" on storage.objects for insert to authenticated with check (
              bucket_id = 'org-docs' and (select private.in_crew(((storage.foldername(name))[1])::uuid)));
            create policy "crew replace" on storage.objects for update to authenticated
              using (bucket_id = 'org-docs' and private.in_crew(((storage.foldername(name))[1])::uuid))
              with check (bucket_id = 'org-docs' and public.in_crew_text((storage.foldername(name))[1]));
            create policy "crew add" on storage.objects for insert to authenticated with check (
              bucket_id = 'org-docs' and exists (select 1 from public.crew c
                where c.org_id::text = (storage.foldername(name))[1] and c.user_id = auth.uid()));
            """,
        ])
}
