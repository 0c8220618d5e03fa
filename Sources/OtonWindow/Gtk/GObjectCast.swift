import CGtk

/// GObject's C casts (GTK_WINDOW(x), G_OBJECT(x) …) for Swift: a GTK pointer seen as another
/// type of the same object. Only for casts GObject's type hierarchy allows, as in C.
func cast<Target>(_ pointer: UnsafeMutableRawPointer?) -> UnsafeMutablePointer<Target> {
    pointer!.assumingMemoryBound(to: Target.self)
}

func cast<Source, Target>(_ pointer: UnsafeMutablePointer<Source>?) -> UnsafeMutablePointer<Target> {
    UnsafeMutableRawPointer(pointer!).assumingMemoryBound(to: Target.self)
}

func cast<Target>(_ pointer: OpaquePointer?) -> UnsafeMutablePointer<Target> {
    UnsafeMutableRawPointer(pointer!).assumingMemoryBound(to: Target.self)
}

/// The same, for GTK's final types that Swift sees only as opaque pointers (GtkLabel, GtkListItem …).
func cast<Source>(_ pointer: UnsafeMutablePointer<Source>?) -> OpaquePointer {
    OpaquePointer(pointer!)
}

func cast(_ pointer: UnsafeMutableRawPointer?) -> OpaquePointer {
    OpaquePointer(pointer!)
}

func cast(_ pointer: OpaquePointer?) -> OpaquePointer {
    pointer!
}

func cast(_ pointer: OpaquePointer?) -> UnsafeMutableRawPointer {
    UnsafeMutableRawPointer(pointer!)
}

func cast<Source>(_ pointer: UnsafeMutablePointer<Source>?) -> UnsafeMutableRawPointer {
    UnsafeMutableRawPointer(pointer!)
}
