import Foundation
import TestSupport
import XCTest

/// The HTML grid of a team app in a real browser: group actors, roles and forgers in a stable
/// order, the membership table's own operations, each cell's policies narrowed to its role.
final class HTMLTeamReportTests: XCTestCase {
    override func setUpWithError() throws {
        _ = try Browser.require()
    }

    /// A small team app: squads, their memberships (lead or crew) and squad tasks. Tasks are
    /// readable by every signed-in user (the hole); anon has a policy of its own on tasks.
    static let schema = """
        create type public.squad_role as enum ('lead', 'crew');
        create table public.squads (
          id uuid primary key default gen_random_uuid(),
          title text not null,
          made_by uuid not null default auth.uid() references auth.users (id)
        );
        create table public.squad_members (
          squad_id uuid not null references public.squads (id) on delete cascade,
          member_id uuid not null references auth.users (id) on delete cascade,
          rank public.squad_role not null default 'crew',
          primary key (squad_id, member_id)
        );
        create table public.tasks (
          id bigint generated always as identity primary key,
          squad_id uuid not null references public.squads (id) on delete cascade,
          label text not null
        );
        create table public.sketches (
          id int primary key,
          drawn_by uuid not null references auth.users (id),
          outline point not null
        );
        create function public.in_squad(s uuid) returns boolean language sql stable security definer set search_path = '' as $$
          select exists (select 1 from public.squad_members where squad_id = s and member_id = (select auth.uid())) $$;
        create function public.leads(s uuid) returns boolean language sql stable security definer set search_path = '' as $$
          select exists (select 1 from public.squad_members where squad_id = s and member_id = (select auth.uid()) and rank = 'lead') $$;
        create function public.add_maker() returns trigger language plpgsql security definer set search_path = '' as $$
          begin insert into public.squad_members (squad_id, member_id, rank) values (new.id, new.made_by, 'lead'); return new; end $$;
        create trigger squads_maker after insert on public.squads for each row execute function public.add_maker();
        alter table public.squads enable row level security;
        alter table public.squad_members enable row level security;
        alter table public.tasks enable row level security;
        alter table public.sketches enable row level security;
        grant select, insert, update, delete on public.squads, public.squad_members, public.tasks, public.sketches to authenticated;
        grant select on public.tasks to anon;
        grant all on public.squads, public.squad_members, public.tasks, public.sketches to service_role;
        create policy squads_see on public.squads for select to authenticated using (public.in_squad(id));
        create policy squads_make on public.squads for insert to authenticated with check (made_by = (select auth.uid()));
        create policy squads_edit on public.squads for update to authenticated using (public.leads(id));
        create policy squads_drop on public.squads for delete to authenticated using (public.leads(id));
        create policy crew_see on public.squad_members for select to authenticated using (public.in_squad(squad_id));
        create policy crew_add on public.squad_members for insert to authenticated with check (public.leads(squad_id));
        create policy crew_rank on public.squad_members for update to authenticated
          using (public.leads(squad_id) and member_id <> (select auth.uid())) with check (public.leads(squad_id));
        create policy crew_drop on public.squad_members for delete to authenticated
          using ((public.leads(squad_id) and member_id <> (select auth.uid())) or (member_id = (select auth.uid()) and rank = 'crew'));
        create policy "tasks for all signed in" on public.tasks for select to authenticated using (true);
        create policy tasks_anon_none on public.tasks for select to anon using (false);
        create policy tasks_add on public.tasks for insert to authenticated with check (public.in_squad(squad_id));
        create policy tasks_edit on public.tasks for update to authenticated using (public.in_squad(squad_id)) with check (public.in_squad(squad_id));
        create policy tasks_drop on public.tasks for delete to authenticated using (public.leads(squad_id));
        create policy sketches_own on public.sketches for all to authenticated using (drawn_by = (select auth.uid()));
        insert into storage.buckets (id, name, public) values ('squad-files', 'squad-files', false);
        create function public.squad_folder(name text, lead_only boolean) returns boolean language sql stable security definer set search_path = '' as $$
          select exists (select 1 from public.squad_members m where m.squad_id::text = (storage.foldername(name))[1]
            and m.member_id = (select auth.uid()) and (not lead_only or m.rank = 'lead')) $$;
        create policy "squad-files: list" on storage.objects for select to authenticated
          using (bucket_id = 'squad-files' and public.squad_folder(name, false));
        create policy "squad-files: upload" on storage.objects for insert to authenticated
          with check (bucket_id = 'squad-files' and public.squad_folder(name, false));
        create policy "squad-files: move" on storage.objects for update to authenticated
          using (bucket_id = 'squad-files' and public.squad_folder(name, false))
          with check (bucket_id = 'squad-files' and public.squad_folder(name, false));
        create policy "squad-files: leads delete" on storage.objects for delete to authenticated
          using (bucket_id = 'squad-files' and public.squad_folder(name, true));
        """

    static let access = """
        members public.squad_members
          group squad_id
          user member_id
          role rank
          roles lead crew
          read members
          add members with role lead
          remove members with role lead
          leave members
          change-role members with role lead

        table public.squads
          group id
          read members
          insert signed-in
          update members with role lead
          delete members with role lead

        table public.tasks
          group squad_id
          read members
          insert members
          update members
          delete members with role lead

        table public.sketches
          owner drawn_by
          read owner
          write owner

        bucket squad-files
          ownership group
          read members
          upload members
          overwrite members
          move members
          delete members with role lead

        role admin
          claim app_metadata.role = admin
        """

    func testTeamGridShowsGroupActorsRolesAndNarrowedPolicies() throws {
        let tmp = try CLI.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: tmp) }
        for d in ["m", "t"] {
            try FileManager.default.createDirectory(atPath: tmp + "/" + d, withIntermediateDirectories: true)
        }
        try Self.schema.write(toFile: tmp + "/m/0001_squads.sql", atomically: true, encoding: .utf8)
        try Self.access.write(toFile: tmp + "/t/squads.rls", atomically: true, encoding: .utf8)
        let r = try CLI.run(
            ["check", "--dir", tmp + "/m", "--tests", tmp + "/t", "--html", tmp + "/r.html"],
            environment: ["TMPDIR": tmp], directory: tmp)
        XCTAssertEqual(r.code, 1, r.output)
        let html = try String(contentsOfFile: tmp + "/r.html", encoding: .utf8)
        func index(_ pattern: String) throws -> String {
            let m = try XCTUnwrap(html.range(of: pattern, options: .regularExpression), pattern)
            return String(html[m].split(separator: "\"")[1])
        }
        let leak = try index(#"data-i="\d+" class="c-leak">G1&#39;s row|data-i="\d+" class="c-leak">G1's row"#)
        let dom = try Browser.run(["--dump-dom"], url: "file://\(tmp)/r.html#c\(leak)").output

        func grid(_ caption: String) throws -> String {
            let start = try XCTUnwrap(dom.range(of: "<caption>\(caption) <small>"), caption).lowerBound
            let end = try XCTUnwrap(dom.range(of: "</table>", range: start..<dom.endIndex)).lowerBound
            return String(dom[start..<end])
        }
        func headers(_ table: String, _ scope: String) -> [String] {
            let parts = table.components(separatedBy: "<th scope=\"\(scope)\">").dropFirst()
            return parts.map { String($0.prefix { $0 != "<" }) }
        }
        // Actors in a stable order: group actors, the role's holder and forger, anon.
        let tasks = try grid("public.tasks")
        let actors = headers(tasks, "row")
        // (tables only: the user in both groups, who checks that rows cannot be pushed between them)
        let order = ["G1 lead", "G1 crew", "G2 lead", "outsider", "admin", "forged admin", "anon"]
        var tableOrder = order
        tableOrder.insert("G1 lead in G2 as crew", at: 4)
        XCTAssertEqual(actors.map { $0.components(separatedBy: " (").first! }, tableOrder, "\(actors)")
        XCTAssertEqual(headers(tasks, "col"), ["actor", "select", "insert", "update", "move", "delete"])
        XCTAssertTrue(tasks.contains("class=\"c-leak\">G1's row: ✗ leak</button>"), tasks)
        // The membership table's own operations have columns of their own.
        let crew = try grid("public.squad_members")
        XCTAssertEqual(
            headers(crew, "col"),
            ["actor", "select", "move", "join", "add", "remove", "leave", "promote", "change-role"])
        XCTAssertTrue(crew.contains("class=\"c-denied\">self to lead: ✓ denied</button>"), crew)
        XCTAssertTrue(crew.contains("class=\"c-denied\">G1 uninvited: ✓ denied</button>"), crew)
        // The team folder bucket: the same actors in the same order, the Storage operations.
        let files = try grid("bucket squad-files")
        XCTAssertEqual(headers(files, "row").map { $0.components(separatedBy: " (").first! }, order)
        XCTAssertEqual(headers(files, "col"), ["actor", "list", "upload", "overwrite", "move", "delete"])
        XCTAssertTrue(files.contains("class=\"c-denied\">G1's object: ✓ denied</button>"), files)
        // A table nobody could test: "not covered (why)".
        let sketches = try grid("public.sketches")
        XCTAssertTrue(sketches.contains("<td class=\"c-skipped\">– not covered ("), sketches)
        XCTAssertTrue(sketches.contains("outline"), sketches)

        // The opened leak: SQL, expected vs got, the responsible policy, file:line, and only the
        // policies for authenticated on SELECT.
        let panel = String(dom[try XCTUnwrap(dom.range(of: "<aside id=\"detail\"")).lowerBound...])
        XCTAssertTrue(panel.contains("public.tasks: "), panel)
        XCTAssertTrue(panel.contains("LEAK: allowed, should be denied"), panel)
        XCTAssertTrue(panel.contains("<dt>expected</dt><dd>the row not visible"), panel)
        XCTAssertTrue(panel.contains("<dt>got</dt><dd>"), panel)
        XCTAssertTrue(panel.contains("<pre>select count(*) from public.tasks"), panel)
        XCTAssertTrue(panel.contains("<dt>declared at</dt><dd>\(tmp)/t/squads.rls:19</dd>"), panel)
        let responsible = try XCTUnwrap(panel.range(of: "<h3>Responsible policies</h3>")).upperBound
        XCTAssertTrue(panel[responsible...].prefix(200).contains("tasks for all signed in"), panel)
        let onCommand = try XCTUnwrap(panel.range(of: "<h3>Policies on this command for authenticated</h3>"))
        let listed = String(panel[onCommand.upperBound...].prefix { $0 != "/" })
        XCTAssertTrue(
            listed.contains("<li>tasks for all signed in (for select to authenticated) using (true)<"), listed)
        XCTAssertFalse(listed.contains("tasks_anon_none"), "anon's policy is not one of authenticated's")

        // anon's own select cell on tasks lists anon's policy, not authenticated's.
        let anonRow = try XCTUnwrap(tasks.range(of: "<th scope=\"row\">anon</th>")).upperBound
        let anonCell = try XCTUnwrap(
            tasks.range(of: #"data-i="\d+""#, options: .regularExpression, range: anonRow..<tasks.endIndex))
        let anonIndex = String(tasks[anonCell].split(separator: "\"")[1])
        let anonDom = try Browser.run(["--dump-dom"], url: "file://\(tmp)/r.html#c\(anonIndex)").output
        let anonPanel = String(anonDom[try XCTUnwrap(anonDom.range(of: "<aside id=\"detail\"")).lowerBound...])
        let anonListed = try XCTUnwrap(anonPanel.range(of: "<h3>Policies on this command for anon</h3>"), anonPanel)
        XCTAssertEqual(
            String(anonPanel[anonListed.upperBound...].prefix(70)),
            "<ul><li>tasks_anon_none (for select to anon) using (false)</li></ul><b")

        // The run facts name the grants regime the throwaway database modelled.
        XCTAssertTrue(dom.contains("<dt>grants</dt><dd>grants explicit ("), dom)
    }
}
