import Foundation
import Postgres

/// A batch of checks that run in one transaction on one connection: users are signed up,
/// rows seeded, every check runs in its own savepoint, and everything is rolled back.
struct HarnessUnit: Sendable {
    var suite: String
    var users: [HarnessActor]
    /// Creates `users` through the sign-up path; filled in by the planner from the live auth.users.
    var signUp: String = ""
    /// Users signed up after seeding (M, whose forged sign-up metadata names a group that must
    /// exist first), and their sign-up script.
    var lateUsers: Set<UUID> = []
    var lateSignUp: String = ""
    /// Seeding, as one script after sign-up. If it fails the unit is not covered, with the reason.
    var setup: String
    var checks: [PolicyCheck]
    /// Set when the unit cannot run at all: reported as "not covered: reason".
    var notCovered: String?
    /// Matrix checks each start from the seeded state; scenario steps build on each other.
    var isolation: PipelineIsolation
    var location: SourceLocation?
    /// The project's custom access-token hook: run for `users` after seeding; checks read its claims.
    var hook: AccessTokenHook?
    /// GoTrue's role exists, so the hook is called as it.
    var hookAsAuthAdmin = false
    /// Storage API requests: run on the Storage API's login where there is one.
    var storage = false
    /// Call the exposed SECURITY DEFINER functions after the checks, in the seeded state.
    var probe: FunctionProbeRequest?

    init(
        suite: String, users: [HarnessActor] = [], setup: String = "", checks: [PolicyCheck] = [],
        notCovered: String? = nil,
        isolation: PipelineIsolation = .rollbackEach, location: SourceLocation? = nil
    ) {
        self.suite = suite
        self.users = users
        self.setup = setup
        self.checks = checks
        self.notCovered = notCovered
        self.isolation = isolation
        self.location = location
    }
}
