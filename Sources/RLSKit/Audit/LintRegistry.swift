/// Every lint rlskit knows, in id order.
public enum LintRegistry {
    public static let all: [Lint] = [
        .authUsersExposed, .authRLSInitplan, .multiplePermissivePolicies, .policyExistsRLSDisabled,
        .rlsEnabledNoPolicy, .securityDefinerView, .functionSearchPathMutable, .rlsDisabledInPublic,
        .extensionInPublic, .rlsReferencesUserMetadata, .materializedViewInAPI, .foreignTableInAPI,
        .fkeyToAuthUnique, .sensitiveColumnsExposed, .rlsPolicyAlwaysTrue, .publicBucketAllowsListing,
        .anonSecurityDefinerFunctionExecutable, .authenticatedSecurityDefinerFunctionExecutable,
        .storageWriteWithoutOwnerCheck, .authUidIsNullDisjunct, .withCheckWeakerThanUsing,
        .secretInCatalog, .unindexedPolicyColumn, .policySelfComparison, .uncorrelatedPolicySubquery,
        .nullDefeatedGuard, .ownRowUpdatePrivilegeColumn, .realtimeChannelWithoutTopicCheck,
        .restrictiveInsertBypassedByUpdate, .platformTableNotRead, .policySubqueryColumnShadowed,
    ]

    /// By name or id (`auth_users_exposed`, `0002`).
    public static func named(_ key: String) -> Lint? {
        all.first { $0.name == key || $0.id == key }
    }
}
