import XCTest

@testable import RLSKit

/// The questions the precision lints ask of deparsed policy text.
extension PolicyExpressionTests {
    func testBareCallInsideASubqueryWithFromIsPerRow() {
        let e = PolicyExpression(
            "(EXISTS ( SELECT 1 FROM memberships m WHERE ((m.org = notes.org) AND (m.user_id = auth.uid()))))")
        XCTAssertEqual(e.authCalls, [.init(function: "auth.uid", wrapped: false)])
        let wrapped = PolicyExpression(
            "(EXISTS ( SELECT 1 FROM memberships m WHERE ((m.org = notes.org) AND (m.user_id = ( SELECT auth.uid() AS uid)))))"
        )
        XCTAssertEqual(wrapped.authCalls, [.init(function: "auth.uid", wrapped: true)])
    }

    func testBucketIdsAreOnlyTheStringsComparedWithBucketId() {
        let e = PolicyExpression(
            "((bucket_id = 'logos'::text) AND (replace(storage.filename(name), concat('.', storage.extension(name)), ''::text) = 'x'::text))"
        )
        XCTAssertEqual(e.bucketIds, ["logos"])
        XCTAssertEqual(
            PolicyExpression("(bucket_id = ANY (ARRAY['a'::text, 'b'::text]))").bucketIds, ["a", "b"])
    }

    func testMembershipOverTheObjectNameIsAnOwnerCheck() {
        let e = PolicyExpression(
            "((bucket_id = 'teams'::text) AND ((storage.foldername(name))[1] IN ( SELECT my_team_ids() AS my_team_ids)))"
        )
        XCTAssertTrue(e.hasOwnerCheck)
        XCTAssertFalse(e.hasIdentity)
        XCTAssertFalse(PolicyExpression("((bucket_id = 'teams'::text) AND (name ~~ 'public/%'::text))").hasOwnerCheck)
    }

    func testSelfComparison() {
        let e = PolicyExpression(
            "(EXISTS ( SELECT 1 FROM memberships WHERE ((memberships.user_id = ( SELECT auth.uid() AS uid)) AND (memberships.organization_id = memberships.organization_id))))"
        )
        XCTAssertEqual(e.selfComparisons, ["memberships.organization_id = memberships.organization_id"])
        XCTAssertEqual(PolicyExpression("(memberships.organization_id = projects.organization_id)").selfComparisons, [])
        XCTAssertEqual(
            PolicyExpression("(( SELECT auth.uid() AS uid) = ( SELECT auth.uid() AS uid))").selfComparisons, [])
    }

    func testUncorrelatedRestriction() {
        let bug = PolicyExpression(
            "(EXISTS ( SELECT 1 FROM memberships WHERE (memberships.organization_id IN ( SELECT get_orgs() AS get_orgs))))"
        )
        XCTAssertNotNil(PolicyExpression.Scan.uncorrelatedRestriction(bug.nodes, table: "users"))
        let fixed = PolicyExpression(
            "(EXISTS ( SELECT 1 FROM memberships WHERE ((memberships.organization_id IN ( SELECT get_orgs() AS get_orgs)) AND (memberships.user_id = users.id))))"
        )
        XCTAssertNil(PolicyExpression.Scan.uncorrelatedRestriction(fixed.nodes, table: "users"))
        // Another conjunct restricts the row.
        let mixed = PolicyExpression("((owner = ( SELECT auth.uid() AS uid)) AND \(bug.text))")
        XCTAssertNil(PolicyExpression.Scan.uncorrelatedRestriction(mixed.nodes, table: "users"))
    }

    func testUncorrelatedInAndScalarSubqueries() {
        func decided(_ text: String) -> String? {
            PolicyExpression.Scan.uncorrelatedRestriction(PolicyExpression(text).nodes, table: "users")
        }
        let inner = "FROM memberships WHERE (memberships.organization_id IN ( SELECT get_orgs() AS get_orgs))"
        XCTAssertNotNil(decided("(( SELECT count(*) AS count \(inner)) > 0)"))
        XCTAssertNotNil(decided("( SELECT true AS bool \(inner) LIMIT 1)"))
        XCTAssertNotNil(decided("COALESCE(( SELECT true AS bool \(inner) LIMIT 1), false)"))
        XCTAssertNotNil(decided("('owner'::text IN ( SELECT memberships.role \(inner)))"))
        XCTAssertNotNil(
            decided(
                "((auth.role() = 'authenticated'::text) AND ('owner'::text IN ( SELECT memberships.role \(inner))))"))
        // The row's own column, or the caller, on the outside.
        XCTAssertNil(decided("(organization_id IN ( SELECT memberships.organization_id \(inner)))"))
        XCTAssertNil(decided("(users.organization_id IN ( SELECT memberships.organization_id \(inner)))"))
        XCTAssertNil(decided("(auth.uid() IN ( SELECT memberships.user_id \(inner)))"))
        XCTAssertNil(decided("(( SELECT count(*) AS count \(inner)) > users.seats)"))
        // No subquery that reads a table.
        XCTAssertNil(decided("(auth.role() = 'authenticated'::text)"))
        XCTAssertNil(decided("(( SELECT get_org() AS get_org) IN ( SELECT get_orgs() AS get_orgs))"))
    }
}

final class FunctionBodyTests: XCTestCase {
    func testNullDefeatedGuards() {
        let body = """
            declare v_role text; n int;
            begin
              select role into v_role from members where user_id = auth.uid();
              select count(*) into n from members;
              if v_role <> 'owner' then raise exception 'no'; end if;
              if n <> 1 then raise exception 'no'; end if;
              if v_role is null or v_role <> 'owner' then raise exception 'no'; end if;
            end
            """
        XCTAssertEqual(FunctionBody(body).nullDefeatedGuards(), ["if v_role <> 'owner' then raise"])
    }

    func testCallerCheckNeedsACondition() {
        XCTAssertEqual(
            FunctionBody("select * from notes where user_id = auth.uid()").callerCheck(helpers: []), "auth.uid()")
        XCTAssertNil(FunctionBody("insert into log (who) values (auth.uid())").callerCheck(helpers: []))
        XCTAssertEqual(
            FunctionBody("if not is_admin() then raise exception 'no'; end if;").callerCheck(helpers: ["is_admin"]),
            "is_admin(), which checks the caller")
    }

    func testCallerChecksThroughVariablesRaisingHelpersAndWrappedSecrets() {
        XCTAssertEqual(
            FunctionBody("select has_role(a) into ok; if not ok then raise exception 'no'; end if;")
                .callerCheck(helpers: ["has_role"]), "ok, filled from has_role(), which checks the caller")
        XCTAssertNil(
            FunctionBody("select count(*) into n from t; if n > 3 then raise exception 'no'; end if;")
                .callerCheck(helpers: ["has_role"]))
        XCTAssertEqual(
            FunctionBody("select caller_role(a) into r; return r;").callerCheck(
                helpers: [], raisingHelpers: ["caller_role"]), "caller_role(), which raises unless the caller qualifies"
        )
        XCTAssertEqual(
            FunctionBody("select s from t where lower(c) = lower(p_code)").callerCheck(
                helpers: [], secretArguments: ["p_code"]), "a lookup by its secret argument p_code")
        XCTAssertNil(
            FunctionBody("select s from t where c is not null and lower(p_code) like 'x%'").callerCheck(
                helpers: [], secretArguments: ["p_code"]))
    }

    func testHelpersThatRaiseOnNullAndEarlierNullChecks() {
        let raising =
            "select x into r from t where u = auth.uid(); if r is null then raise exception 'no'; end if; return r;"
        XCTAssertTrue(FunctionBody(raising).raisesOnNull)
        XCTAssertFalse(
            FunctionBody("if p is null then raise exception 'no'; end if; return (select x from t where id = p);")
                .raisesOnNull)
        let guarded = "if (select caller_role(a) ->> 'role' <> 'owner') then raise exception 'no'; end if;"
        XCTAssertEqual(FunctionBody(guarded).nullDefeatedGuards().count, 1)
        XCTAssertEqual(FunctionBody(guarded).nullDefeatedGuards(nonNullCalls: ["caller_role"]), [])
        let checked = """
            select role into v from m where u = auth.uid();
            if v is null then raise exception 'no'; end if;
            if v <> 'owner' then raise exception 'no'; end if;
            """
        XCTAssertEqual(FunctionBody(checked).nullDefeatedGuards(), [])
    }

    func testOnlyAFirstGuardThatEveryAnonCallFailsStopsAnon() {
        let first = [
            "declare v uuid := auth.uid(); begin if v is null then raise exception 'no'; end if; delete from t; end",
            "declare v uuid default auth.uid(); begin if v is null then raise exception 'no'; end if; end",
            "begin if auth.uid() is null or p = 1 then raise exception 'no'; end if; delete from t; end",
            "begin if (select auth.role()) != 'authenticated' then raise 'no'; end if; end",
        ]
        for body in first { XCTAssertNotNil(FunctionBody(body).anonStoppedAtEntry, body) }
        let others = [
            // Only logs; caught by a handler; after another statement; tests an argument; reassigned.
            "begin if auth.uid() is null then raise notice 'anon'; end if; delete from t; end",
            "begin if auth.uid() is null then raise exception 'no'; end if; exception when others then return; end",
            "begin delete from t; if auth.uid() is null then raise exception 'no'; end if; end",
            "begin if p is null then raise exception 'no'; end if; end",
            "declare v uuid := auth.uid(); begin v := coalesce(v, p); if v is null then raise exception 'no'; end if; end",
            "begin if auth.role() is null then raise exception 'no'; end if; end",
        ]
        for body in others { XCTAssertNil(FunctionBody(body).anonStoppedAtEntry, body) }
    }

    func testTestsOfTheArgumentsAloneAreNoNullDefeatedGuards() {
        let args: Set<String> = ["p_items", "p_mode"]
        let shape = "if jsonb_typeof(p_items) <> 'array' then raise exception 'no'; end if;"
        XCTAssertEqual(FunctionBody(shape).nullDefeatedGuards(arguments: args), [])
        XCTAssertEqual(FunctionBody(shape).nullDefeatedGuards().count, 1)
        let lookup = "if jsonb_typeof(public.settings_of(p_mode)) <> 'object' then raise exception 'no'; end if;"
        XCTAssertEqual(FunctionBody(lookup).nullDefeatedGuards(arguments: args).count, 1)
    }
}
