import Foundation
import TestSupport
import XCTest

@testable import RLSKit

/// Rows whose group is that of the row they point at: a task belongs to its project's team.
final class ThroughGroupTests: XCTestCase {
    static let schema =
        TeamFixture.schema + """

            create table public.tasks (
              id bigint generated always as identity primary key,
              project_id bigint not null references public.projects (id) on delete cascade,
              title text not null
            );
            create function public.in_project(p bigint) returns boolean language sql stable security definer set search_path = '' as $$
              select exists (select 1 from public.projects pr where pr.id = p and public.is_member(pr.team_id)) $$;
            alter table public.tasks enable row level security;
            grant select, insert, update, delete on public.tasks to authenticated;
            grant all on public.tasks to service_role;
            grant usage on all sequences in schema public to authenticated, service_role;
            create policy tasks_read on public.tasks for select to authenticated using (public.in_project(project_id));
            create policy tasks_add on public.tasks for insert to authenticated with check (public.in_project(project_id));
            create policy tasks_edit on public.tasks for update to authenticated using (public.in_project(project_id)) with check (public.in_project(project_id));
            create policy tasks_drop on public.tasks for delete to authenticated using (public.in_project(project_id));
            """

    static let access =
        TeamFixture.access + """

            table public.tasks
              group project_id through public.projects
              read members
              write members
            """

    func testTasksFollowTheirProjectsTeam() throws {
        try IntentFixture.assertCatches(
            schema: Self.schema, access: Self.access,
            present: [
                "public.tasks: G2 owner reads G1's row", "public.tasks: G1 member deletes G1's row",
                "public.tasks: G1 owner moves G1's row into G2", "public.tasks: outsider inserts a row into G1",
            ],
            bugs: [
                .init(
                    what: "tasks readable by everyone signed in",
                    sql:
                        "drop policy tasks_read on public.tasks; create policy r on public.tasks for select to authenticated using (true);",
                    fails: ["public.tasks: G2 owner reads G1's row", "public.tasks: outsider reads G1's row"]),
                .init(
                    what: "tasks insertable into any project",
                    sql:
                        "drop policy tasks_add on public.tasks; create policy a on public.tasks for insert to authenticated with check (true);",
                    fails: [
                        "public.tasks: G2 owner inserts a row into G1", "public.tasks: outsider inserts a row into G1",
                    ]),
            ])
    }

    func testThroughMistakes() throws {
        let base = TeamFixture.access + "\ntable public.tasks\n  read members\n  write members\n"
        for (line, wanted) in [
            (
                "  group project_id through public.nope\n",
                "table public.tasks: 'through public.nope' needs a 'table public.nope' block"
            ),
            ("  group project_id via public.projects\n", "write 'group column' or 'group column through schema.table'"),
        ] {
            XCTAssertThrowsError(try AccessFile.parse(base + line, path: "a.rls")) {
                XCTAssertTrue("\($0)".contains(wanted), "\($0)")
            }
        }
    }
}
