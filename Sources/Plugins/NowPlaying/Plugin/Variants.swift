import CGio
import FoundationEssentials
import NowPlayingLogic
import OtonGLibThread

/// GVariant builders from Swift values (g_variant_new's varargs are not callable from Swift).
/// Every result is a floating reference that the GDBus call receiving it consumes.
enum Variants {
    static func string(_ value: String) -> OpaquePointer { g_variant_new_string(value) }
    static func bool(_ value: Bool) -> OpaquePointer { g_variant_new_boolean(value ? 1 : 0) }
    static func double(_ value: Double) -> OpaquePointer { g_variant_new_double(value) }
    static func int64(_ value: Int64) -> OpaquePointer { g_variant_new_int64(gint64(value)) }
    static func uint32(_ value: UInt32) -> OpaquePointer { g_variant_new_uint32(value) }
    static func int32(_ value: Int32) -> OpaquePointer { g_variant_new_int32(value) }
    static func objectPath(_ value: String) -> OpaquePointer {
        g_variant_is_object_path(value) != 0 ? g_variant_new_object_path(value) : g_variant_new_object_path(NowPlayingModel.noTrack)
    }

    static func strings(_ values: [String]) -> OpaquePointer { SessionBus.strings(values) }

    /// An a{sv} dictionary.
    static func dictionary(_ entries: [(String, OpaquePointer)]) -> OpaquePointer { SessionBus.dictionary(entries) }

    static func metadata(_ value: MetadataValue) -> OpaquePointer {
        switch value {
        case let .string(text): return string(text)
        case let .strings(list): return strings(list)
        case let .objectPath(path): return objectPath(path)
        }
    }

    /// The string inside a variant of type s, o or g; nil for other types.
    static func text(_ variant: OpaquePointer?) -> String? { SessionBus.text(variant) }
}

/// Reads and frees a GError: its message in words.
func takeError(_ error: UnsafeMutablePointer<GError>?) -> String { BusFailure(taking: error).description }
