// The parts of readDeck (kfvm_Deck.cpp) that deal with several variables: [[variable]]
// and the [[equation]] tables of a coupled deck.
#include "kfvm_Deck.hpp"
#include "kfvm_DeckTableReader.hpp"

#include <cctype>
#include <limits>

namespace kfvm::app {

namespace {

/// A letter, then letters, digits or '_' (names become file and dataset names).
bool isName(const std::string& text) {
  if (text.empty() || !std::isalpha(static_cast<unsigned char>(text[0]))) return false;
  for (char c : text)
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '_') return false;
  return true;
}

std::string variableNames(const Deck& deck) {
  std::string names;
  for (const auto& v : deck.variables) names += (names.empty() ? "" : ", ") + v.name;
  return names;
}

DeckVariable readVariable(TableReader& reader, int dimension, bool nameRequired) {
  DeckVariable variable;
  const toml::node* node = reader.find("name");
  variable.name = reader.string("name", "phi", {}, nameRequired);
  if (!isName(variable.name))
    reader.error(node, "name", "\"", variable.name,
                 "\" is not a name (a letter, then letters, digits or _)");
  if (const auto* initial = reader.subtable("initial")) {
    TableReader initialReader(reader.path(), *initial, reader.name() + ".initial");
    readInitial(initialReader, variable.initial, dimension);
  }
  reader.finish();
  return variable;
}

/// A term's coefficients per variable, { name = number or "expression", ... }; 0 for a
/// variable not named.
std::vector<DeckCoefficient> perVariable(TableReader& equation, const std::string& key,
                                         double low, const Deck& deck) {
  std::vector<DeckCoefficient> values(deck.variables.size());
  const toml::node* node = equation.find(key);
  if (!node) return values;
  if (!node->is_table())
    equation.error(node, key, "a coupled equation takes a number (or an expression) per ",
                   "variable, like { ", deck.variables[0].name, " = 1.0 }, got ",
                   TableReader::show(*node));
  TableReader reader(equation.path(), *node->as_table(), equation.name() + "." + key);
  for (std::size_t v = 0; v < values.size(); ++v)
    values[v] = reader.coefficient(deck.variables[v].name, 0, low, huge);
  reader.finish();  // a name that is not a variable is an unknown key
  return values;
}

CoupledEquationSpec readCoupledEquation(TableReader& equation, const Deck& deck) {
  const std::size_t n = deck.variables.size();
  for (const char* key : {"convection", "higher_order", "diffusion_polynomial"})
    if (const toml::node* node = equation.find(key))
      equation.error(node, key,
                     "not available in a coupled deck ([[equation]] takes transient, "
                     "diffusion, implicit_source, source_polynomial and source)");
  CoupledEquationSpec spec;
  spec.transient = perVariable(equation, "transient", 0, deck);
  spec.diffusion = perVariable(equation, "diffusion", -huge, deck);
  spec.implicitSource = perVariable(equation, "implicit_source", -huge, deck);
  spec.sourcePolynomial.assign(n, {});
  if (const toml::node* node = equation.find("source_polynomial")) {
    if (!node->is_table())
      equation.error(node, "source_polynomial",
                     "a coupled equation takes coefficients per variable, like { ",
                     deck.variables[0].name, " = [0.0, 1.0] }, got ",
                     TableReader::show(*node));
    TableReader reader(equation.path(), *node->as_table(),
                       equation.name() + ".source_polynomial");
    for (std::size_t v = 0; v < n; ++v) {
      const std::string& name = deck.variables[v].name;
      spec.sourcePolynomial[v] = reader.numbers(name, 0, -huge, huge);
      if (spec.sourcePolynomial[v].size() > 8)
        reader.error(reader.find(name), name, "at most 8 coefficients, got ",
                     spec.sourcePolynomial[v].size());
    }
    reader.finish();
  }
  spec.source = equation.coefficient("source", 0, -huge, huge);
  bool any = false;
  for (std::size_t v = 0; v < n; ++v)
    any = any || CoupledEquationSpec::acts(spec.transient, v) ||
          CoupledEquationSpec::acts(spec.diffusion, v) ||
          CoupledEquationSpec::acts(spec.implicitSource, v) ||
          !spec.sourcePolynomial[v].empty();
  if (!any)
    equation.error(nullptr, "equation",
                   "acts on no variable (give transient, diffusion, implicit_source or "
                   "source_polynomial for some variable)");
  equation.finish();
  return spec;
}

}  // namespace

void readVariables(TableReader& top, Deck& deck) {
  const toml::node* node = top.find("variable");
  if (!node) return;  // one variable, phi, starting at 0
  deck.variables.clear();
  if (const toml::table* table = node->as_table()) {
    TableReader reader(deck.path, *table, "variable");
    deck.variables.push_back(readVariable(reader, deck.dimension, false));
    return;
  }
  const toml::array* array = node->as_array();
  if (!array || !array->is_array_of_tables() || array->empty())
    top.error(node, "variable", "expected a [variable] table or [[variable]] tables");
  const int most = deckMaxVariables;
  if (int(array->size()) > most)
    top.error(node, "variable", "at most ", most, " variables, got ", array->size());
  for (const toml::node& element : *array) {
    TableReader reader(deck.path, *element.as_table(), "variable");
    deck.variables.push_back(readVariable(reader, deck.dimension, array->size() > 1));
    for (std::size_t v = 0; v + 1 < deck.variables.size(); ++v)
      if (deck.variables[v].name == deck.variables.back().name)
        reader.error(reader.find("name"), "name", "\"", deck.variables[v].name,
                     "\" names two variables");
  }
}

void readCoupledEquations(TableReader& top, const toml::array& equations, Deck& deck) {
  const std::size_t n = deck.variables.size();
  if (equations.size() != n)
    top.error(&equations, "equation", "a deck of ", n, " variable", n > 1 ? "s" : "",
              " needs ", n, " [[equation]] tables, got ", equations.size());
  for (std::size_t e = 0; e < n; ++e) {
    TableReader reader(deck.path, *equations[e].as_table(),
                       "equation " + std::to_string(e + 1));
    deck.coupled.push_back(readCoupledEquation(reader, deck));
  }
  for (std::size_t v = 0; v < n; ++v) {
    bool acts = false;
    for (const auto& spec : deck.coupled) {
      acts = acts || CoupledEquationSpec::acts(spec.transient, v) ||
             CoupledEquationSpec::acts(spec.diffusion, v) ||
             CoupledEquationSpec::acts(spec.implicitSource, v) ||
             !spec.sourcePolynomial[v].empty();
      deck.transient = deck.transient || CoupledEquationSpec::acts(spec.transient, v);
    }
    if (!acts)
      top.error(&equations, "equation", "variable \"", deck.variables[v].name,
                "\" appears in no equation");
  }
}

int variableIndex(TableReader& reader, const std::string& key, const Deck& deck) {
  const toml::node* node = reader.find(key);
  if (!node) {
    if (deck.variables.size() > 1)
      reader.error(nullptr, key, "missing: name one of the variables (",
                   variableNames(deck), ")");
    return 0;
  }
  const std::string name = reader.string(key, "");
  for (std::size_t v = 0; v < deck.variables.size(); ++v)
    if (deck.variables[v].name == name) return int(v);
  reader.error(node, key, "unknown variable \"", name,
               "\" (variables: ", variableNames(deck), ")");
}

}  // namespace kfvm::app
