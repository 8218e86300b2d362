// The field tables against the documents that restate them: docs/log-format.md must name every key
// of every record in that record's section (and its channel), the fuzz dictionary must hold every
// key and type.
#include "core/record_schema.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>
#include <set>
#include <sstream>
#include <string>

namespace gpufl::schema {
namespace {

std::string readFile(const std::string& path) {
  std::ifstream in(path);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

const std::string kRoot = std::string(GPUFL_TEST_DATA_DIR) + "/../..";

// Every key of T's table, nested objects' keys included.
template <typename T>
void keysOf(std::vector<std::string>& out) {
  forEachRow<T>([&](const FieldInfo& f, std::string_view) {
    if (f.kind != Kind::Object && f.kind != Kind::ObjectList) out.emplace_back(f.key);
  });
}

// The "### " section of docs/log-format.md whose heading names `type`, up to the next "### " or "##
// " heading (the generated field reference, a "## " section, does not count as documentation).
std::string section(const std::string& doc, std::string_view type) {
  size_t at = 0;
  while ((at = doc.find("\n### ", at)) != std::string::npos) {
    const size_t eol = doc.find('\n', at + 1);
    const std::string heading = doc.substr(at + 5, eol - at - 5);
    std::istringstream words(heading);
    for (std::string w; words >> w;)
      if (w == type)
        return heading + "\n" +
               doc.substr(eol, std::min(doc.find("\n### ", eol), doc.find("\n## ", eol)) - eol);
    at = eol;
  }
  return "";
}

TEST(RecordSchema, LogFormatDocNamesEveryKeyInItsRecordsSection) {
  const std::string doc = readFile(kRoot + "/docs/log-format.md");
  ASSERT_FALSE(doc.empty());
  forEachRecordType([&]<typename T>() {
    const std::string_view type = Schema<T>::type;
    const std::string text = section(doc, type);
    ASSERT_FALSE(text.empty()) << "docs/log-format.md has no section for " << type;
    const std::string heading = text.substr(0, text.find('\n'));
    const std::string channel = Schema<T>::channel == "all"
                                    ? "every channel"
                                    : std::string(Schema<T>::channel) + " channel";
    EXPECT_NE(heading.find(channel), std::string::npos)
        << type << ": heading '" << heading << "' lacks " << channel;
    std::vector<std::string> keys;
    keysOf<T>(keys);
    for (const std::string& key : keys) {
      if (key == "type") continue;  // a flag carried by the record type (memset_event)
      // A device record's fields are documented by reference to session_start.devices.
      if (std::is_same_v<T, DeviceEvent>) continue;
      EXPECT_NE(text.find("`" + key + "`"), std::string::npos)
          << "docs/log-format.md, section " << type << ": key `" << key << "` not documented";
    }
  });
}

TEST(RecordSchema, FuzzDictionaryHoldsEveryKeyAndType) {
  const std::string dict = readFile(kRoot + "/tests/fuzz/reader.dict");
  ASSERT_FALSE(dict.empty());
  std::set<std::string> entries;
  std::istringstream lines(dict);
  for (std::string line; std::getline(lines, line);) entries.insert(line);
  const auto entry = [](std::string_view word) { return "\"\\\"" + std::string(word) + "\\\"\""; };
  forEachRecordType([&]<typename T>() {
    EXPECT_TRUE(entries.count(entry(Schema<T>::type)))
        << "reader.dict lacks the type " << entry(Schema<T>::type);
    std::vector<std::string> keys;
    keysOf<T>(keys);
    for (const std::string& key : keys)
      EXPECT_TRUE(entries.count(entry(key))) << "reader.dict lacks the key " << entry(key);
  });
}

TEST(RecordSchema, TablesDescribeKindsAndPresence) {
  EXPECT_EQ(std::size(Schema<KernelEvent>::fields), 9u);
  EXPECT_EQ(Schema<KernelDef>::fields[0].key, "k");
  EXPECT_EQ(Schema<KernelDef>::fields[0].presence, Presence::Required);
  EXPECT_EQ(Schema<KernelDef>::fields[5].kind, Kind::Dim3);
  EXPECT_EQ(Schema<HostSample>::fields[1].kind, Kind::Double);  // optional<double>
  EXPECT_EQ(Schema<SessionStart>::fields[6].kind, Kind::Enum);
  EXPECT_EQ(Schema<SessionStart>::fields[9].kind, Kind::JsonMap);
  EXPECT_EQ(Schema<SessionStart>::fields[10].kind, Kind::ObjectList);
  EXPECT_EQ(Schema<RangeCounters>::fields[3].kind, Kind::NumberMap);
  EXPECT_EQ(Schema<GpuSample>::channel, "system");
}

}  // namespace
}  // namespace gpufl::schema
