// serve/html.hpp: the page: one HTML document with its CSS and JavaScript inline (written in
// host/app/serve/page.html, page.css and page.js, embedded in the binary at build time:
// cmake/embed_page.cmake), which loads nothing from anywhere else. Served, it reads the
// runs from the server (api/state, api/run) and follows them (api/events); as a file, it
// carries them inside, in a <script type="application/json"> block. It builds every element
// with textContent, so whatever a run printed is shown as text, and shows each SVG as an
// <img>, where an SVG runs no script.
#pragma once
#include <string>

namespace warplab::app::serve {

// The document. `data`: the runs (Runs::all_json) for a file; null when served. `nonce`
// marks the page's own <script> and <style> for the Content-Security-Policy.
std::string page_html(const std::string& nonce, const std::string* data);

// The Content-Security-Policy: served as a header, in a file as a <meta> (then no
// connection at all: every picture is a data: URI).
std::string page_csp(const std::string& nonce, bool file);

// A line in the page's head (page.html), in its first 2 KiB: `run --html` replaces no file but
// one that holds it.
inline constexpr const char* kGenerator = "<meta name=\"generator\" content=\"warplab\">";

// What the build embedded (generated from page.html, page.css, page.js).
struct PageAssets {
  const char* html;
  const char* css;
  const char* js;
};
const PageAssets& page_assets();

}  // namespace warplab::app::serve
