// `gpufl.Scope`'s native half: construction, __enter__ and __exit__ in C++, because in Python their
// bookkeeping (a per-thread dict of stacks) cost 5x the scope itself (issue 19: 740-866 ns a `with`
// against 129 ns for the bare begin/end pair; a Python subclass alone cost 150 ns to construct).
// The decorator (__call__) goes to python/gpufl/_api.py, where a Python function wrapper is made.
#include <nanobind/nanobind.h>

#include <utility>
#include <vector>

#include "bindings.hpp"
#include "gpufl/gpufl.hpp"

namespace nb = nanobind;

namespace gpufl::py {
namespace {

// A Scope holds its name and tag as the Python strings it was given (no copy); their UTF-8 is
// cached inside the str objects after the first enter.
struct NativeScope {
  nb::object name;  // str, or None for a decorator that takes the function's name
  nb::object tag;   // str
};

// Scopes open on this thread, innermost last: one object may be entered from several threads and
// recursively, and each entry is closed by the exit on its own thread.
thread_local std::vector<std::pair<const NativeScope*, uint64_t>> open_scopes;

std::string_view utf8(const nb::object& s) {
  Py_ssize_t size = 0;
  const char* text = PyUnicode_AsUTF8AndSize(s.ptr(), &size);
  if (text == nullptr) throw nb::python_error();
  return {text, static_cast<size_t>(size)};
}

void construct(NativeScope* self, nb::handle name, nb::handle tag) {
  if (!name.is_none() && !PyUnicode_Check(name.ptr())) {
    if (PyCallable_Check(name.ptr()))
      throw nb::type_error("use @gpufl.Scope() or @gpufl.Scope('name'), not a bare @gpufl.Scope");
    throw nb::type_error(
        ("scope name must be a str, not " + std::string(Py_TYPE(name.ptr())->tp_name)).c_str());
  }
  nb::object tag_str = tag.is_none() ? nb::str("") : nb::borrow(tag);
  if (!PyUnicode_Check(tag_str.ptr())) tag_str = nb::str(tag);
  new (self) NativeScope{nb::borrow(name), std::move(tag_str)};
}

nb::handle enter(nb::handle self_handle) {
  const NativeScope& self = nb::cast<const NativeScope&>(self_handle);
  if (self.name.is_none()) throw nb::type_error("a Scope used with `with` needs a name");
  open_scopes.emplace_back(&self, scopeBegin(utf8(self.name), utf8(self.tag)));
  return self_handle;
}

// Three handles rather than nb::args: packing a tuple per exit costs more than the search below.
bool exit(const NativeScope& self, nb::handle, nb::handle, nb::handle) {
  for (auto it = open_scopes.rbegin(); it != open_scopes.rend(); ++it) {
    if (it->first != &self) continue;
    const uint64_t id = it->second;
    open_scopes.erase(std::next(it).base());
    scopeEnd(id);
    break;
  }
  return false;  // exceptions propagate
}

nb::object decorate(nb::handle self, nb::handle func) {
  return nb::module_::import_("gpufl._api").attr("_decorate_with_scope")(self, func);
}

nb::str describe(const NativeScope& s) {
  return nb::str("Scope({!r}, {!r})").format(s.name, s.tag);
}

constexpr const char* kDoc =
    R"(A named region: everything launched on this thread while it is open is attributed to it.

As a context manager::

    with gpufl.Scope("matrix_mul_compute", "math"):
        ...

As a decorator (every call of the function is one scope; the name defaults to the function's qualified
name)::

    @gpufl.Scope("train_step")
    def step(): ...

Scopes nest per thread (the C++ runtime keeps one stack per OS thread, and Python threads are OS threads).
One Scope object may be entered from several threads or recursively: each entry is tracked separately.)";

}  // namespace

void bindScope(nb::module_& m) {
  nb::class_<NativeScope>(m, "Scope", kDoc, nb::is_weak_referenceable())
      .def("__init__", &construct, nb::arg("name").none() = nb::none(), nb::arg("tag").none() = "")
      .def("__enter__", &enter, nb::rv_policy::reference)
      .def("__exit__", &exit, nb::arg("exc_type").none(), nb::arg("exc").none(),
           nb::arg("tb").none())
      .def("__call__", &decorate, nb::arg("func"))
      .def("__repr__", &describe)
      .def_prop_ro("name", [](const NativeScope& s) { return s.name; })
      .def_prop_ro("tag", [](const NativeScope& s) { return s.tag; });
}

}  // namespace gpufl::py
