//! Entry point of the page: installs the panic hook, then mounts [`proxima_web::App`]
//! into `<body>`.

fn main() {
    #[cfg(target_arch = "wasm32")]
    proxima_web::browser::install_panic_hook();
    yew::Renderer::<proxima_web::App>::new().render();
}
