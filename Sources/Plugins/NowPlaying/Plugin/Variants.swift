import CGio
import FoundationEssentials
import NowPlayingLogic

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

    static func strings(_ values: [String]) -> OpaquePointer {
        let copies = values.map { UnsafePointer(strdup($0)) }
        defer { copies.forEach { free(UnsafeMutablePointer(mutating: $0)) } }
        return copies.withUnsafeBufferPointer { g_variant_new_strv($0.baseAddress, gssize($0.count)) }
    }

    /// An a{sv} dictionary.
    static func dictionary(_ entries: [(String, OpaquePointer)]) -> OpaquePointer {
        let builder = g_variant_builder_new(oton_type_vardict())
        defer { g_variant_builder_unref(builder) }
        for (key, value) in entries {
            g_variant_builder_add_value(builder, g_variant_new_dict_entry(g_variant_new_string(key), g_variant_new_variant(value)))
        }
        return g_variant_builder_end(builder)
    }

    static func metadata(_ value: MetadataValue) -> OpaquePointer {
        switch value {
        case let .string(text): return string(text)
        case let .strings(list): return strings(list)
        case let .objectPath(path): return objectPath(path)
        }
    }

    /// The string inside a variant of type s, o or g; nil for other types.
    static func text(_ variant: OpaquePointer?) -> String? {
        guard let variant, let pointer = g_variant_get_string(variant, nil) else { return nil }
        let type = String(cString: g_variant_get_type_string(variant))
        return type == "s" || type == "o" || type == "g" ? String(cString: pointer) : nil
    }
}

/// Reads and frees a GError.
func takeError(_ error: UnsafeMutablePointer<GError>?) -> String {
    guard let error else { return "unknown error" }
    defer { g_error_free(error) }
    return error.pointee.message.map { String(cString: $0) } ?? "unknown error"
}
