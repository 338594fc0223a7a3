#include "cu/attributes.hpp"
namespace warplab::cu {
const AttributeInfo* find_attribute(std::string_view) { return nullptr; }
}
