extension Lint {
    static let realtimeChannelWithoutTopicCheck = Lint(
        id: "1010", name: "realtime_channel_without_topic_check",
        title: "Realtime channel access with no topic check",
        level: .error, categories: [.security],
        description: """
            A SELECT, INSERT or ALL policy on realtime.messages (Realtime Authorization for \
            Broadcast and Presence on private channels) for API callers never ties the channel \
            topic (`realtime.topic()`) to the caller, to a set of topics computed for them, or to \
            fixed topic names: every caller it applies to may receive (SELECT) or send and track \
            presence (INSERT) on every topic, other users' rooms included. Checking only \
            `extension` or the role does not narrow the topic.
            """,
        remediation:
            "Tie the topic to the caller, e.g. `using (exists (select 1 from public.room_members m where m.user_id = (select auth.uid()) and m.topic = (select realtime.topic())))`.",
        logic: .swift(needs: [.policies]) { catalog in
            catalog.policies.compactMap { p -> FindingDraft? in
                guard p.schema == "realtime", p.table == "messages", p.permissive, !p.apiRoles.isEmpty
                else { return nil }
                let narrowed = restrictiveTopicChecks(catalog, p)
                var actions: [String] = []
                if ["SELECT", "ALL"].contains(p.command), !narrowed.contains("SELECT"),
                    !(p.usingExpr.map { PolicyExpression.Scan.topicIsChecked($0.nodes) } ?? false)
                {
                    actions.append("receive")
                }
                if ["INSERT", "ALL"].contains(p.command), !narrowed.contains("INSERT"),
                    !(p.effectiveCheck.map { PolicyExpression.Scan.topicIsChecked($0.nodes) } ?? false)
                {
                    actions.append("send")
                }
                guard !actions.isEmpty else { return nil }
                let kinds = Set(
                    p.expressions.flatMap { PolicyExpression.Scan.strings(comparedWith: "extension", in: $0.nodes) }
                )
                .intersection(["broadcast", "presence"]).sorted()
                let what = kinds.isEmpty ? "broadcast and presence" : kinds.joined(separator: " and ")
                return FindingDraft(
                    object: p.object,
                    detail:
                        "\(p.label) lets \(p.rolesText) \(actions.joined(separator: " and ")) \(what) on every topic: it never checks realtime.topic() against the caller",
                    metadata: p.baseMetadata.merging(["actions": actions.joined(separator: ",")]) { $1 })
            }
        },
        triggering: [
            .init(
                """
                create policy "signed in users listen" on realtime.messages for select to authenticated
                  using (realtime.messages.extension in ('broadcast', 'presence'));
                """, reports: "policy \"signed in users listen\" on realtime.messages"),
            .init(
                """
                -- A room table is read, but never for the caller: every room's topic.
                create table public.rooms (id uuid primary key, topic text not null, owner_id uuid);
                create policy "room members send" on realtime.messages for insert to authenticated
                  with check (exists (select 1 from public.rooms where rooms.topic = (select realtime.topic())));
                """, reports: "policy \"room members send\" on realtime.messages"),
            .init(
                """
                -- A signed-in check and a topic prefix: still every room.
                create policy "rooms" on realtime.messages for all to authenticated
                  using ((select auth.uid()) is not null and realtime.topic() like 'room:%')
                  with check ((select auth.uid()) is not null and realtime.topic() like 'room:%');
                """, reports: "policy \"rooms\" on realtime.messages"),
        ],
        nonTriggering: [
            """
            create table public.room_members (user_id uuid, topic text);
            create policy "members listen" on realtime.messages for select to authenticated using (
              exists (select 1 from public.room_members m
                      where m.user_id = (select auth.uid()) and m.topic = (select realtime.topic())
                        and realtime.messages.extension in ('broadcast')));
            """,
            """
            -- The caller's own channel.
            create policy "own channel" on realtime.messages for insert to authenticated
              with check (realtime.topic() = 'user:' || (select auth.uid())::text);
            """,
            """
            -- A set of topics a helper computes for the caller.
            create function public.my_topics() returns setof text language sql stable
              as $$ select 'room:' || auth.uid()::text $$;
            create policy "my rooms" on realtime.messages for select to authenticated
              using (realtime.topic() in (select public.my_topics()));
            """,
            """
            -- One named public channel.
            create policy "lobby" on realtime.messages for select to authenticated
              using (realtime.topic() = 'lobby');
            """,
            """
            -- A restrictive policy narrows the topic.
            create table public.room_members (user_id uuid, topic text);
            create policy "listen" on realtime.messages for select to authenticated using (true);
            create policy "only members" on realtime.messages as restrictive for select to authenticated using (
              exists (select 1 from public.room_members m
                      where m.user_id = (select auth.uid()) and m.topic = realtime.topic()));
            """,
        ])

    /// Commands (SELECT, INSERT) for which a restrictive policy for every API role of `p`
    /// checks the topic.
    static func restrictiveTopicChecks(_ catalog: AuditCatalog, _ p: PolicyRow) -> Set<String> {
        var out = Set<String>()
        for r in catalog.policies where r.schema == p.schema && r.table == p.table && !r.permissive {
            guard Set(p.apiRoles).isSubset(of: r.apiRoles) else { continue }
            if ["SELECT", "ALL"].contains(r.command),
                r.usingExpr.map({ PolicyExpression.Scan.topicIsChecked($0.nodes) }) ?? false
            {
                out.insert("SELECT")
            }
            if ["INSERT", "ALL"].contains(r.command),
                r.effectiveCheck.map({ PolicyExpression.Scan.topicIsChecked($0.nodes) }) ?? false
            {
                out.insert("INSERT")
            }
        }
        return out
    }
}
