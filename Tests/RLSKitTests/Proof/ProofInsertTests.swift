import Postgres
import TestSupport
import XCTest

@testable import RLSKit

/// A proof's insert of another user's row meets the victim's row in a unique key: sent again
/// with the key's free columns fresh, or with the attacker's own id where the key holds the
/// owner next to columns that cannot change.
final class ProofInsertTests: XCTestCase {
    /// Members of organisations; whoever has an admin row of any organisation may add members
    /// (the policy compares the admin's organisation with itself).
    static func members(_ key: String, extra: String = "") -> String {
        """
        create type public.seat as enum ('first', 'second');
        create table public.orgs (id uuid primary key default gen_random_uuid(), name text);
        create table public.admins (user_id uuid references auth.users, org_id uuid);
        create table public.members (id uuid primary key default gen_random_uuid(),
          org_id uuid not null references public.orgs, user_id uuid not null references auth.users,
          seat public.seat not null, \(key));
        alter table public.members enable row level security;
        create policy "admins add members" on public.members for insert to authenticated with check (
          exists (select 1 from public.admins a where a.user_id = (select auth.uid()) and a.org_id = a.org_id));
        grant insert on public.members to authenticated;
        grant select on public.admins to authenticated;
        \(extra)
        """
    }

    func testTheStrangersOwnIdWhereTheKeyHoldsTheOwner() throws {
        let f = try ProofFixture.prove("policy_self_comparison", Self.members("unique (org_id, user_id)"))
        ProofFixture.assertProven(
            f, actor: "a stranger", effect: "inserted (a row of their own, with another user's org_id)")
    }

    func testAFreshValueWhereTheKeyHasAFreeColumn() throws {
        let f = try ProofFixture.prove("policy_self_comparison", Self.members("unique (org_id, seat)"))
        ProofFixture.assertProven(f, actor: "a stranger", effect: "inserted (as another user's)")
    }

    func testAKeyOfColumnsThatCannotChangeIsDemotedWithTheReason() throws {
        // One member per organisation: the insert cannot be anything but a duplicate.
        let f = try ProofFixture.prove("policy_self_comparison", Self.members("unique (org_id)"))
        ProofFixture.assertDemoted(f, "duplicate key value violates unique constraint")
    }

    func testAPolicyThatStillRefusesIsDemoted() throws {
        // The admin rows are hidden: the retried insert meets the policy, not the key.
        let f = try ProofFixture.prove(
            "policy_self_comparison",
            Self.members("unique (org_id, user_id)", extra: "alter table public.admins enable row level security;"))
        ProofFixture.assertDemoted(f, "new row violates row-level security policy")
    }
}
