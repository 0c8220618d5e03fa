import CGdkPixbuf

/// The built-in artwork when neither cover nor logo can be had: a plain 256×256
/// PNG in the theme's slate colour, written into the cache directory once.
enum DefaultArtwork {
    static let color = "#3A3F4B"
    private static let rgba: UInt32 = 0x3A3F_4BFF

    static func write(into directory: String) -> String? {
        let path = directory + "/default.png"
        if access(path, R_OK) == 0 { return path }
        guard let pixbuf = gdk_pixbuf_new(GDK_COLORSPACE_RGB, 0, 8, 256, 256) else { return nil }
        defer { oton_object_unref(UnsafeMutableRawPointer(pixbuf)) }
        gdk_pixbuf_fill(pixbuf, rgba)
        let temporary = path + ".tmp"
        var error: UnsafeMutablePointer<GError>?
        guard gdk_pixbuf_savev(pixbuf, temporary, "png", nil, nil, &error) != 0 else {
            g_error_free(error)
            return nil
        }
        return rename(temporary, path) == 0 ? path : nil
    }
}
