// no_world.rs -- the no_world guard (samples/plugins/no_world.c) in Rust,
// against the same C ABI: proof that a plugin in a language other than C
// and C++ loads and decides through the ABI alone.
//
// The declarations come from the SDK's Rust bindings (sdk/rust/toolgate-sys,
// checked against toolgate.h by a test), so nothing is mirrored by hand.
// Built without Cargo or a crate registry, with rustc 1.63 (Debian 12) or
// later -- see samples/CMakeLists.txt:
//   rustc --edition 2018 --crate-type rlib --crate-name toolgate_sys sdk/rust/toolgate-sys/src/lib.rs
//   rustc --edition 2018 --crate-type cdylib -C panic=abort \
//         --extern toolgate_sys=libtoolgate_sys.rlib no_world.rs
// With Cargo: `toolgate-sys = { path = ".../sdk/rust/toolgate-sys" }` and
// `crate-type = ["cdylib"]`.
use std::os::raw::c_void;
use std::ptr;
use std::sync::atomic::{AtomicPtr, Ordering};
use toolgate_sys::*;

// Set once in init (the control thread), before any callback can run.
static HOST: AtomicPtr<tg_host_api> = AtomicPtr::new(ptr::null_mut());

const REASON: &str = "greeting the whole World is not allowed (said in Rust)";

unsafe extern "C" fn no_world(
    _user_data: *mut c_void,
    call: *const tg_call,
    verdict: *mut i32,
) -> tg_status {
    // Nothing may unwind across the C boundary: this body cannot panic (no
    // indexing, no allocation), and the crate is built with panic=abort
    // besides.  A missing host entry is a failure, which denies.
    let host = &*HOST.load(Ordering::Acquire);
    let (arg_string, set_reason) = match (host.arg_string, host.set_reason) {
        (Some(a), Some(s)) => (a, s),
        _ => return TG_ERROR,
    };
    *verdict = TG_GUARD_ABSTAIN;
    let mut name = tg_str { data: ptr::null(), size: 0 };
    if arg_string(call, b"/name\0".as_ptr() as *const _, &mut name) == TG_OK
        && name.as_bytes() == b"World"
    {
        set_reason(call, tg_str::from_str(REASON));
        *verdict = TG_GUARD_DENY;
    }
    TG_OK
}

unsafe extern "C" fn init(
    host: *const tg_host_api,
    ctx: *mut tg_init_ctx,
    _config: tg_str,
    _out_state: *mut *mut c_void,
) -> tg_status {
    HOST.store(host as *mut tg_host_api, Ordering::Release);
    let options = tg_hook_options {
        struct_size: std::mem::size_of::<tg_hook_options>() as u32,
        name: b"no-world\0".as_ptr() as *const _,
        tool_filter: b"greet\0".as_ptr() as *const _,
        priority: 0,
        user_data: ptr::null_mut(),
    };
    match (*host).register_guard {
        Some(register_guard) => register_guard(ctx, &options, Some(no_world)),
        None => TG_ERROR,
    }
}

static DESCRIPTOR: tg_plugin_descriptor = tg_plugin_descriptor {
    struct_size: std::mem::size_of::<tg_plugin_descriptor>() as u32,
    abi_major: TOOLGATE_ABI_MAJOR,
    // The oldest host it needs: it uses nothing newer than ABI 1.0.
    abi_minor: 0,
    id: b"sample.rust-no-world\0".as_ptr() as *const _,
    version: b"1.0.0\0".as_ptr() as *const _,
    capabilities: TG_CAP_GUARD,
    flags: 0,
    init: Some(init),
    shutdown: None,
    export_state: None,
    import_state: None,
    config_schema: std::ptr::null(),
};

/// The one exported symbol (TOOLGATE_ENTRY_SYMBOL).
#[no_mangle]
pub extern "C" fn toolgate_plugin_entry() -> *const tg_plugin_descriptor {
    &DESCRIPTOR
}
