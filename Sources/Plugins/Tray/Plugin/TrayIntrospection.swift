/// The two objects the tray exports: the StatusNotifierItem (KDE's spec, also read by GNOME's
/// AppIndicator extension and XFCE's panel) and its menu (com.canonical.dbusmenu).
/// https://www.freedesktop.org/wiki/Specifications/StatusNotifierItem/
enum TrayIntrospection {
    static let itemPath = "/StatusNotifierItem"
    static let menuPath = "/MenuBar"
    static let itemInterface = "org.kde.StatusNotifierItem"
    static let menuInterface = "com.canonical.dbusmenu"

    static let xml = """
        <node>
          <interface name="org.kde.StatusNotifierItem">
            <property name="Category" type="s" access="read"/>
            <property name="Id" type="s" access="read"/>
            <property name="Title" type="s" access="read"/>
            <property name="Status" type="s" access="read"/>
            <property name="IconName" type="s" access="read"/>
            <property name="ToolTip" type="(sa(iiay)ss)" access="read"/>
            <property name="ItemIsMenu" type="b" access="read"/>
            <property name="Menu" type="o" access="read"/>
            <method name="ContextMenu"><arg name="x" type="i" direction="in"/><arg name="y" type="i" direction="in"/></method>
            <method name="Activate"><arg name="x" type="i" direction="in"/><arg name="y" type="i" direction="in"/></method>
            <method name="SecondaryActivate"><arg name="x" type="i" direction="in"/><arg name="y" type="i" direction="in"/></method>
            <method name="Scroll"><arg name="delta" type="i" direction="in"/><arg name="orientation" type="s" direction="in"/></method>
            <signal name="NewTitle"/>
            <signal name="NewIcon"/>
            <signal name="NewToolTip"/>
            <signal name="NewStatus"><arg name="status" type="s"/></signal>
          </interface>
          <interface name="com.canonical.dbusmenu">
            <property name="Version" type="u" access="read"/>
            <property name="TextDirection" type="s" access="read"/>
            <property name="Status" type="s" access="read"/>
            <property name="IconThemePath" type="as" access="read"/>
            <method name="GetLayout">
              <arg type="i" name="parentId" direction="in"/><arg type="i" name="recursionDepth" direction="in"/>
              <arg type="as" name="propertyNames" direction="in"/>
              <arg type="u" name="revision" direction="out"/><arg type="(ia{sv}av)" name="layout" direction="out"/>
            </method>
            <method name="GetGroupProperties">
              <arg type="ai" name="ids" direction="in"/><arg type="as" name="propertyNames" direction="in"/>
              <arg type="a(ia{sv})" name="properties" direction="out"/>
            </method>
            <method name="GetProperty">
              <arg type="i" name="id" direction="in"/><arg type="s" name="name" direction="in"/><arg type="v" name="value" direction="out"/>
            </method>
            <method name="Event">
              <arg type="i" name="id" direction="in"/><arg type="s" name="eventId" direction="in"/>
              <arg type="v" name="data" direction="in"/><arg type="u" name="timestamp" direction="in"/>
            </method>
            <method name="EventGroup"><arg type="a(isvu)" name="events" direction="in"/><arg type="ai" name="idErrors" direction="out"/></method>
            <method name="AboutToShow"><arg type="i" name="id" direction="in"/><arg type="b" name="needUpdate" direction="out"/></method>
            <method name="AboutToShowGroup">
              <arg type="ai" name="ids" direction="in"/><arg type="ai" name="updatesNeeded" direction="out"/>
              <arg type="ai" name="idErrors" direction="out"/>
            </method>
            <signal name="ItemsPropertiesUpdated"><arg type="a(ia{sv})" name="updatedProps"/><arg type="a(ias)" name="removedProps"/></signal>
            <signal name="LayoutUpdated"><arg type="u" name="revision"/><arg type="i" name="parent"/></signal>
            <signal name="ItemActivationRequested"><arg type="i" name="id"/><arg type="u" name="timestamp"/></signal>
          </interface>
        </node>
        """
}
