/// One value of the MPRIS Metadata dictionary, typed as D-Bus needs it.
public enum MetadataValue: Equatable, Sendable {
    case string(String)
    case strings([String])
    case objectPath(String)
}
