/// The version of oton itself (not of the plugin ABI).
public enum OtonVersion {
    public static let current = "0.1.0"
}
