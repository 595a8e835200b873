import CATK
import Foundation
import Glibc

/// The window as screen readers see it, through the desktop's accessibility bus (AT-SPI): an
/// application holding one frame named as the window is, active while the window has the keyboard
/// focus. A screen reader (Orca) then speaks the window's name when it comes to the front, as it
/// does for any desktop application, and lists it among the open ones.
///
/// ATK and its AT-SPI bridge are not thread-safe and talk over D-Bus: they run on a thread of their
/// own, in GLib's main loop, and every change is handed to that thread. The main loop never waits
/// on them. Without an accessibility bus (a desktop without one) the thread just waits, silently,
/// and `NO_AT_BRIDGE=1` turns the bridge off, as for any GTK application.
public final class ScreenReaderWindow: Sendable {
    /// Starts the bridge for an application called `application` whose window is called `window`.
    /// Only one may exist in a process: ATK has one root per application.
    public init(application: String, window: String) {
        let names = Names(application: application, window: window)
        let ready = Semaphore()
        let thread = Thread { runBridge(names, ready: ready) }
        thread.name = "accessibility"
        thread.start()
        // GLib's default context is ours once the thread holds it; until then a hand-over from this
        // thread could run here instead of there.
        ready.wait()
    }

    /// The window gained (true) or lost the keyboard focus.
    public func windowActive(_ active: Bool) {
        g_main_context_invoke(nil, setWindowActive, UnsafeMutableRawPointer(bitPattern: active ? 2 : 1))
    }
}

private struct Names: Sendable {
    let application: String
    let window: String
}

private final class Semaphore: @unchecked Sendable {
    private var semaphore = sem_t()
    init() { sem_init(&semaphore, 0, 0) }
    deinit { sem_destroy(&semaphore) }
    func signal() { sem_post(&semaphore) }
    func wait() { while sem_wait(&semaphore) != 0 {} }
}

/// The accessible objects, touched only on the bridge's thread.
private enum Tree {
    nonisolated(unsafe) static var application: UnsafeMutablePointer<AtkObject>?
    nonisolated(unsafe) static var frame: UnsafeMutablePointer<AtkObject>?
    nonisolated(unsafe) static var frameActive = false
    /// Set once a screen reader listens: the bridge then hooks ATK's signals, and what was said
    /// before (the window's first activation, usually) is said again.
    nonisolated(unsafe) static var listening = false
    nonisolated(unsafe) static var bridgeAddsListener:
        (@convention(c) (GSignalEmissionHook?, UnsafePointer<gchar>?) -> guint)?
}

private func runBridge(_ names: Names, ready: Semaphore) {
    g_main_context_acquire(nil)
    ready.signal()
    // The bridge's warnings (no accessibility bus, say) are not the user's business.
    g_log_set_writer_func(dropLogMessage, nil, nil)

    let utilClass = g_type_class_ref(atk_util_get_type())!.assumingMemoryBound(to: AtkUtilClass.self)
    utilClass.pointee.get_root = applicationAccessible
    utilClass.pointee.get_toolkit_name = toolkitName
    utilClass.pointee.get_toolkit_version = toolkitVersion
    Tree.bridgeAddsListener = utilClass.pointee.add_global_event_listener
    utilClass.pointee.add_global_event_listener = addGlobalEventListener

    let type = accessibleType()
    let application = makeAccessible(type, role: ATK_ROLE_APPLICATION, name: names.application)
    let frame = makeAccessible(type, role: ATK_ROLE_FRAME, name: names.window)
    atk_object_set_parent(frame, application)
    Tree.application = application
    Tree.frame = frame

    // Where the bridge cannot start, the loop still takes the window's changes (and drops them).
    _ = atk_bridge_adaptor_init(nil, nil)
    g_main_loop_run(g_main_loop_new(nil, 0))
}

private func makeAccessible(_ type: GType, role: AtkRole, name: String) -> UnsafeMutablePointer<AtkObject> {
    let object = UnsafeMutableRawPointer(g_object_new_with_properties(type, 0, nil, nil)!).assumingMemoryBound(
        to: AtkObject.self)
    atk_object_set_role(object, role)
    atk_object_set_name(object, name)
    return object
}

/// One GObject type for both objects: an AtkObject whose children, index and states come from
/// `Tree`, and which is an AtkWindow, so the bridge passes on its activation as a window's.
private func accessibleType() -> GType {
    var info = GTypeInfo(
        class_size: guint16(MemoryLayout<AtkObjectClass>.size), base_init: nil, base_finalize: nil,
        class_init: initAccessibleClass, class_finalize: nil, class_data: nil,
        instance_size: guint16(MemoryLayout<AtkObject>.size), n_preallocs: 0, instance_init: nil,
        value_table: nil)
    let type = g_type_register_static(atk_object_get_type(), "SonicAtomicAccessible", &info, GTypeFlags(0))
    var window = GInterfaceInfo(interface_init: nil, interface_finalize: nil, interface_data: nil)
    g_type_add_interface_static(type, atk_window_get_type(), &window)
    return type
}

private func initAccessibleClass(_ theClass: gpointer?, _ data: gpointer?) {
    let objectClass = theClass!.assumingMemoryBound(to: AtkObjectClass.self)
    objectClass.pointee.get_n_children = childCount
    objectClass.pointee.ref_child = referenceChild
    objectClass.pointee.get_index_in_parent = indexInParent
    objectClass.pointee.ref_state_set = referenceStateSet
}

private func childCount(_ object: UnsafeMutablePointer<AtkObject>?) -> gint {
    object == Tree.application ? 1 : 0
}

private func referenceChild(_ object: UnsafeMutablePointer<AtkObject>?, _ index: gint) -> UnsafeMutablePointer<
    AtkObject
>? {
    guard object == Tree.application, index == 0, let frame = Tree.frame else { return nil }
    g_object_ref(frame)
    return frame
}

private func indexInParent(_ object: UnsafeMutablePointer<AtkObject>?) -> gint {
    object == Tree.frame ? 0 : -1
}

private func referenceStateSet(_ object: UnsafeMutablePointer<AtkObject>?) -> UnsafeMutablePointer<AtkStateSet>? {
    let states = atk_state_set_new()
    guard object == Tree.frame else { return states }
    var shown = [ATK_STATE_ENABLED, ATK_STATE_SENSITIVE, ATK_STATE_VISIBLE, ATK_STATE_SHOWING, ATK_STATE_RESIZABLE]
    if Tree.frameActive { shown.append(ATK_STATE_ACTIVE) }
    atk_state_set_add_states(states, &shown, gint(shown.count))
    return states
}

private func applicationAccessible() -> UnsafeMutablePointer<AtkObject>? { Tree.application }

private func toolkitName() -> UnsafePointer<gchar>? { staticText("SonicAtomic") }

private func toolkitVersion() -> UnsafePointer<gchar>? { staticText("1") }

private func staticText(_ text: StaticString) -> UnsafePointer<gchar> {
    UnsafeRawPointer(text.utf8Start).assumingMemoryBound(to: gchar.self)
}

/// The bridge hooks ATK's signals only once a screen reader listens; the window's state is then
/// said again, on the next turn of the loop, so a screen reader that arrived late still hears it.
private func addGlobalEventListener(_ listener: GSignalEmissionHook?, _ event: UnsafePointer<gchar>?) -> guint {
    if !Tree.listening {
        Tree.listening = true
        g_idle_add(announceActiveWindow, nil)
    }
    return Tree.bridgeAddsListener?(listener, event) ?? 0
}

private func announceActiveWindow(_ data: gpointer?) -> gboolean {
    if Tree.frameActive { notifyActive(true) }
    return 0
}

private func setWindowActive(_ data: gpointer?) -> gboolean {
    let active = Int(bitPattern: data) == 2
    guard active != Tree.frameActive else { return 0 }
    Tree.frameActive = active
    notifyActive(active)
    return 0
}

private func notifyActive(_ active: Bool) {
    guard let frame = Tree.frame else { return }
    sonic_atk_emit(frame, active ? "activate" : "deactivate")
    atk_object_notify_state_change(frame, AtkState(ATK_STATE_ACTIVE.rawValue), active ? 1 : 0)
}

private func dropLogMessage(
    _ level: GLogLevelFlags, _ fields: UnsafePointer<GLogField>?, _ count: gsize, _ data: gpointer?
) -> GLogWriterOutput { G_LOG_WRITER_HANDLED }
