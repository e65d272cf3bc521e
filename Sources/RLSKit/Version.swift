/// The rlskit release, printed by `rlskit --version`.
public enum RLSKitVersion {
    public static let current = "0.1.0"
}
