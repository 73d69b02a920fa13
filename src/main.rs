//! Entry point of the page: mounts [`proxima_web::App`] into `<body>`.

fn main() {
    yew::Renderer::<proxima_web::App>::new().render();
}
