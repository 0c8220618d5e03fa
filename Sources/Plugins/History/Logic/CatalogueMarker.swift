/// Marks an English message for the catalogues (the completeness test and scripts/update-catalogues
/// find `N_("…")`). It is translated where the plugin shows it: HistoryQuery.Invalid.text and
/// SecretReader.Refused.text take the plugin's `HostHandle.tr`.
func N_(_ message: String) -> String { message }
