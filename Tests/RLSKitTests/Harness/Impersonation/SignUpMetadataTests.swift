import Postgres
import TestSupport
import XCTest

@_spi(CLI) @testable import RLSKit

/// Test users are signed up with the metadata the sign-up triggers read, as an app's sign-up
/// form sends it; keys with no safe value are left out.
final class SignUpMetadataTests: XCTestCase {
    func testKeysTheTriggersReadAndTheirKinds() {
        let m = SignUpMetadata.parse([
            """
            begin
              insert into public.profiles (id, full_name, username, age, adult, born, avatar_url, team, kind)
              values (new.id, coalesce(new.raw_user_meta_data->>'full_name', new.raw_user_meta_data ->> 'name'),
                      new.raw_user_meta_data ->> 'username', (new.raw_user_meta_data->>'age')::int,
                      (new.raw_user_meta_data ->> 'adult')::boolean, (new.raw_user_meta_data->>'born')::date,
                      NEW.RAW_USER_META_DATA -> 'avatar_url', (new.raw_user_meta_data->>'team_id')::uuid,
                      (new.raw_user_meta_data->>'role')::public.app_role);
              return new;
            end
            """
        ])
        XCTAssertEqual(m.keys.map(\.name), ["full_name", "name", "username", "age", "adult", "born", "avatar_url"])
        XCTAssertEqual(m.keys.map(\.kind), [.text, .text, .text, .number, .boolean, .date, .text])
        let a = HarnessActor.user("A")
        let filled = try? JSON(parsing: m.filled(a))
        XCTAssertEqual(filled?["age"], .string("1"))
        if case .string(let url)? = filled?["avatar_url"] {
            XCTAssertTrue(url.hasPrefix("https://"), url)
        } else {
            XCTFail("no avatar_url")
        }
        XCTAssertNotEqual(
            (try? JSON(parsing: m.filled(HarnessActor.user("B"))))?["username"], filled?["username"],
            "each user its own username")
        // What the user was given on purpose stays.
        let forged = HarnessActor.user("M", metadata: #"{"full_name":"Mallory"}"#)
        XCTAssertEqual((try? JSON(parsing: m.filled(forged)))?["full_name"], .string("Mallory"))
    }

    func testACastAfterNullifOrCoalesceIsTheValues() {
        let m = SignUpMetadata.parse([
            """
            insert into public.people (id, age, nick, org, shown)
            values (new.id, nullif(new.raw_user_meta_data->>'age', '')::int,
                    coalesce(new.raw_user_meta_data ->> 'nick', 'anonymous'),
                    nullif(new.raw_user_meta_data->>'org_id', '')::uuid,
                    coalesce((new.raw_user_meta_data->>'shown'), 'true')::boolean);
            """
        ])
        XCTAssertEqual(m.keys.map(\.name), ["age", "nick", "shown"])
        XCTAssertEqual(m.keys.map(\.kind), [.number, .text, .boolean])
    }

    /// A profile trigger whose NOT NULL columns come from the metadata: without it every user's
    /// sign-up fails; with it the checks run (and a planted leak is still caught).
    func testChecksRunWhereTheSignUpTriggerNeedsMetadata() throws {
        for (trigger, leak) in [
            ("new.raw_user_meta_data ->> 'full_name'", false),
            ("coalesce(new.raw_user_meta_data->>'display_name', new.raw_user_meta_data->>'full_name')", true),
        ] {
            let db = try StandIn.makeDatabase(prefix: "sum")
            defer { TestServer.drop(db.name) }
            _ = try db.conn.runScript(
                """
                create table public.profiles (id uuid primary key references auth.users on delete cascade,
                  full_name text not null, age int not null, bio text);
                alter table public.profiles enable row level security;
                create policy "own profile" on public.profiles for select to authenticated
                  using (\(leak ? "true" : "id = (select auth.uid())"));
                grant select on public.profiles to authenticated;
                grant all on public.profiles to service_role;
                create function public.on_signup() returns trigger language plpgsql security definer set search_path = '' as $$
                begin
                  insert into public.profiles (id, full_name, age) values (new.id, \(trigger), (new.raw_user_meta_data->>'age')::int);
                  return new;
                end $$;
                create trigger on_signup after insert on auth.users for each row execute function public.on_signup();
                """)
            var input = HarnessInput()
            input.access = [
                try AccessFile.parse(
                    """
                    table public.profiles
                      owner id
                      read owner
                      write nobody
                    """, path: "profiles.rls")
            ]
            let outcomes = try Harness.run(input, options: HarnessOptions(), on: db.connectionString).outcomes
            XCTAssertFalse(outcomes.isEmpty)
            XCTAssertFalse(
                outcomes.contains {
                    ($0.message ?? "").contains("creating users") || ($0.message ?? "").contains("signing up")
                },
                outcomes.compactMap(\.message).joined(separator: "\n"))
            XCTAssertEqual(
                outcomes.contains { $0.isFailure }, leak,
                outcomes.filter(\.isFailure).compactMap(\.message).joined(separator: "\n"))
        }
    }
}
