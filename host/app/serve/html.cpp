// serve/html.cpp: the page document (html.hpp), put together from the embedded parts.
#include "app/serve/html.hpp"

namespace warplab::app::serve {
namespace {

// The data inside <script type="application/json">: JSON text whose "<" are written as the
// escape \u003c, so no "</script>" (nor "<!--") a run printed can end the block. Outside
// strings JSON has no "<"; inside, the escape reads back as the same character.
std::string in_script(const std::string& json) {
  std::string out;
  out.reserve(json.size() + json.size() / 16);
  for (const char c : json) {
    if (c == '<')
      out += "\\u003c";
    else if (c == '>')
      out += "\\u003e";
    else if (c == '&')
      out += "\\u0026";
    else
      out += c;
  }
  return out;
}

void replace(std::string& s, const std::string& what, const std::string& with) {
  const std::size_t at = s.find(what);
  if (at != std::string::npos) s.replace(at, what.size(), with);
}

}  // namespace

std::string page_csp(const std::string& nonce, bool file) {
  std::string csp = "default-src 'none'; script-src 'nonce-" + nonce + "'; style-src 'nonce-" + nonce +
                    "'; base-uri 'none'; form-action 'none'";
  // A <meta> policy cannot say frame-ancestors; a file needs no connection.
  return file ? csp + "; img-src data:"
              : csp + "; img-src 'self' data:; connect-src 'self'; frame-ancestors 'none'";
}

std::string page_html(const std::string& nonce, const std::string* data) {
  const PageAssets& a = page_assets();
  std::string html = a.html;
  replace(
      html, "<!--warplab:csp-->",
      data ? "<meta http-equiv=\"Content-Security-Policy\" content=\"" + page_csp(nonce, true) + "\">" : "");
  replace(html, "<!--warplab:style-->", "<style nonce=\"" + nonce + "\">\n" + a.css + "</style>");
  replace(
      html, "<!--warplab:data-->",
      data ? "<script type=\"application/json\" id=\"warplab-data\">" + in_script(*data) + "</script>" : "");
  replace(html, "<!--warplab:script-->", "<script nonce=\"" + nonce + "\">\n" + a.js + "</script>");
  return html;
}

}  // namespace warplab::app::serve
