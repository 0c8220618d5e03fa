import ArtworkLogic
import CGdkPixbuf

/// The built-in artwork when neither cover nor logo can be had: ``DefaultArtworkPicture`` (♫ on a
/// slate-blue gradient) as a 256×256 PNG, written into the cache directory once. Its name says its
/// version, so a cache holding an older picture gets the new one.
enum DefaultArtwork {
    private static let pixels = DefaultArtworkPicture.rgb()
    static let color = DefaultArtworkPicture.averageColor(of: pixels)

    static func write(into directory: String) -> String? {
        let path = directory + "/default-2.png"
        if access(path, R_OK) == 0 { return path }
        let size = DefaultArtworkPicture.size
        guard let pixbuf = gdk_pixbuf_new(GDK_COLORSPACE_RGB, 0, 8, Int32(size), Int32(size)) else { return nil }
        defer { oton_object_unref(UnsafeMutableRawPointer(pixbuf)) }
        let stride = Int(gdk_pixbuf_get_rowstride(pixbuf))
        guard let target = gdk_pixbuf_get_pixels(pixbuf) else { return nil }
        pixels.withUnsafeBufferPointer { source in
            for row in 0..<size {
                (target + row * stride).update(from: source.baseAddress! + row * size * 3, count: size * 3)
            }
        }
        let temporary = path + ".tmp"
        var error: UnsafeMutablePointer<GError>?
        guard gdk_pixbuf_savev(pixbuf, temporary, "png", nil, nil, &error) != 0 else {
            g_error_free(error)
            return nil
        }
        return rename(temporary, path) == 0 ? path : nil
    }
}
