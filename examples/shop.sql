-- A small shop schema for the docs' join picture: order_lines declares its keys, orders does not
-- (its customer_id join is inferred from the names).
CREATE TABLE customers (customer_id INT PRIMARY KEY, name TEXT, city TEXT);
CREATE TABLE orders (order_id INT PRIMARY KEY, customer_id INT, ordered_at DATE);
CREATE TABLE products (product_id INT PRIMARY KEY, title TEXT, price DECIMAL(10, 2));
CREATE TABLE order_lines (
    order_id INT REFERENCES orders (order_id),
    product_id INT REFERENCES products (product_id),
    qty INT,
    PRIMARY KEY (order_id, product_id)
);
CREATE TABLE suppliers (supplier_id INT PRIMARY KEY, name TEXT, country TEXT);
