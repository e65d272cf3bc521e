import Foundation
import TestSupport
import XCTest

@testable import RLSKit

/// A tenant header (`header x-team-id = {group}`): members send their group's key, and since
/// callers choose their headers, an outsider sending G1's key must get nothing.
final class GroupHeaderTests: XCTestCase {
    static let schema =
        TeamFixture.schema + """

            create table public.notes (
              id bigint generated always as identity primary key,
              team_id uuid not null references public.teams (id) on delete cascade,
              body text not null
            );
            create function public.header_team() returns uuid language sql stable as $$
              select nullif(current_setting('request.headers', true)::json ->> 'x-team-id', '')::uuid $$;
            alter table public.notes enable row level security;
            grant select, insert, update, delete on public.notes to authenticated;
            grant all on public.notes to service_role;
            grant usage on all sequences in schema public to authenticated, service_role;
            create policy notes_all on public.notes for all to authenticated
              using (team_id = public.header_team() and public.is_member(team_id))
              with check (team_id = public.header_team() and public.is_member(team_id));
            """

    static let access =
        "header x-team-id = {group}\n" + TeamFixture.access + """

            table public.notes
              group team_id
              read members
              write members
              move nobody                # the tenant header pins a row to its team
            """

    func testTheHeaderIsSentAndNotTrusted() throws {
        try IntentFixture.assertCatches(
            schema: Self.schema, access: Self.access,
            present: [
                "public.notes: G1 member reads G1's row", "public.notes: outsider sending G1's key reads G1's row",
            ],
            bugs: [
                .init(
                    what: "the header alone decides",
                    sql:
                        "drop policy notes_all on public.notes; create policy h on public.notes for all to authenticated using (team_id = public.header_team()) with check (team_id = public.header_team());",
                    fails: [
                        "public.notes: outsider sending G1's key reads G1's row",
                        "public.notes: outsider sending G1's key deletes G1's row",
                    ])
            ])
    }

    func testUnknownPlaceholderIsOneLine() throws {
        XCTAssertThrowsError(
            try AccessFile.parse("header x-t = {team}\ntable t\n  read anyone\n  write nobody\n", path: "h.rls")
        ) {
            XCTAssertTrue("\($0)".hasPrefix("h.rls:1: header x-t: unknown placeholder"), "\($0)")
        }
    }
}
