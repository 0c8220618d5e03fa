import OtonHost
import PluginAPI

enum OtonVersionText {
    static let text = "oton \(OtonVersion.current) (plugin ABI \(OTON_ABI_MAJOR).\(OTON_ABI_MINOR))"
}
