import ArtworkLogic
import CGdkPixbuf

/// Checks an untrusted image file with gdk-pixbuf: a known raster format, its
/// size read from the header before anything is decoded, then a full decode
/// (which catches truncated files) and the average colour.
enum ImageValidator {
    struct Failure: Error, CustomStringConvertible {
        let description: String
    }

    struct Image {
        var format: String
        var width: Int
        var height: Int
        var color: String
    }

    /// Raster formats only (no SVG or other loaders with a larger attack surface).
    static let formats: Set<String> = ["jpeg", "png", "gif", "webp", "bmp"]

    static func validate(file path: String, bytes: [UInt8], maxDimension: Int) throws(Failure) -> Image {
        var width: Int32 = 0, height: Int32 = 0
        guard let info = gdk_pixbuf_get_file_info(path, &width, &height),
            let name = gdk_pixbuf_format_get_name(info)
        else {
            throw Failure(description: "not an image")
        }
        let format = String(cString: name)
        g_free(name)
        guard formats.contains(format) else { throw Failure(description: "\(format) images are not accepted") }
        guard width > 0, height > 0 else { throw Failure(description: "the \(format) header has no size") }
        guard width <= maxDimension, height <= maxDimension else {
            throw Failure(description: "\(width)×\(height) is larger than \(maxDimension)×\(maxDimension)")
        }
        guard ImageCompleteness.isComplete(bytes, format: format) else {
            throw Failure(description: "truncated \(format): it does not reach its end marker")
        }
        var error: UnsafeMutablePointer<GError>?
        guard let loader = gdk_pixbuf_loader_new_with_type(format, &error) else { throw Failure(description: message(error)) }
        defer { oton_object_unref(UnsafeMutableRawPointer(loader)) }
        let written = bytes.withUnsafeBufferPointer { gdk_pixbuf_loader_write(loader, $0.baseAddress, gsize($0.count), &error) }
        guard written != 0 else {
            gdk_pixbuf_loader_close(loader, nil)
            throw Failure(description: "corrupt \(format): \(message(error))")
        }
        guard gdk_pixbuf_loader_close(loader, &error) != 0, let pixbuf = gdk_pixbuf_loader_get_pixbuf(loader) else {
            throw Failure(description: "truncated or corrupt \(format): \(message(error))")
        }
        guard gdk_pixbuf_get_bits_per_sample(pixbuf) == 8, gdk_pixbuf_get_colorspace(pixbuf) == GDK_COLORSPACE_RGB else {
            throw Failure(description: "unsupported pixel layout")
        }
        let rowStride = Int(gdk_pixbuf_get_rowstride(pixbuf))
        let channels = Int(gdk_pixbuf_get_n_channels(pixbuf))
        let w = Int(gdk_pixbuf_get_width(pixbuf)), h = Int(gdk_pixbuf_get_height(pixbuf))
        var length: guint = 0
        guard let pixels = gdk_pixbuf_get_pixels_with_length(pixbuf, &length),
            let color = AverageColor.of(
                pixels: UnsafeRawBufferPointer(start: pixels, count: Int(length)),
                width: w, height: h, rowStride: rowStride, channels: channels)
        else {
            throw Failure(description: "no pixels")
        }
        return Image(format: format, width: w, height: h, color: color)
    }

    private static func message(_ error: UnsafeMutablePointer<GError>?) -> String {
        guard let error else { return "no image data" }
        defer { g_error_free(error) }
        return error.pointee.message.map { String(cString: $0) } ?? "unknown error"
    }
}
